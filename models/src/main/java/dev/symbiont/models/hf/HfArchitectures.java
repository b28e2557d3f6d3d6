package dev.symbiont.models.hf;

import java.util.List;
import java.util.Map;

/**
 * The Hugging Face model classes Symbiont runs, by the name {@code config.json} gives
 * ({@code architectures[0]}, else its {@code model_type}), and the known ones it does not run yet.
 */
public final class HfArchitectures {
    private static final List<HfArchitecture> SUPPORTED = List.of(LlamaFamily.LLAMA, LlamaFamily.MISTRAL, LlamaFamily.QWEN2,
            LlamaFamily.MIXTRAL, new Gpt2(), MambaFamily.MAMBA, MambaFamily.MAMBA2);
    /** Classes whose layout is a later step, with what they need. */
    private static final Map<String, String> LATER = Map.of(
            "Qwen2MoeForCausalLM", "its shared expert's sigmoid gate (shared_expert_gate) is not mapped yet",
            "JambaForCausalLM", "its interleaved attention, Mamba and mixture-of-experts layers are not mapped yet");

    private HfArchitectures() {}

    /** The class names Symbiont runs. */
    public static List<String> names() { return SUPPORTED.stream().map(HfArchitecture::name).toList(); }

    /**
     * The architecture {@code config} names.
     *
     * @throws IllegalArgumentException naming the file and the class (or model type) when Symbiont does not run it
     */
    public static HfArchitecture of(HfConfig config) {
        String name = config.architecture();
        String type = config.text("model_type", null);
        for (HfArchitecture a : SUPPORTED) {
            if (name != null ? a.name().equals(name) : a.modelType().equals(type)) return a;
        }
        String what = name != null ? name : type != null ? "model_type " + type : null;
        if (what == null) throw new IllegalArgumentException(config.file() + ": names no architecture (no 'architectures' and no 'model_type')");
        String later = name == null ? null : LATER.get(name);
        throw new IllegalArgumentException(config.file() + ": architecture " + what + " is not supported"
                + (later != null ? " yet: " + later : "") + " (supported: " + String.join(", ", names()) + ")");
    }
}
