package dev.symbiont.models;

import dev.symbiont.core.Generator;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.moe.MoeLayers;

import java.util.Map;

/**
 * The language models Symbiont's own checkpoints hold, rebuilt from the metadata they were saved
 * with ({@link CausalLM#metadata()}): {@code architecture=gpt} is a {@link Gpt} (with
 * mixture-of-experts MLPs when the metadata holds {@code moe_*} keys), {@code mamba} and
 * {@code mamba2} a {@link MambaLM}; metadata without the key (saved before it existed) is GPT's.
 */
public final class CausalLMs {
    private CausalLMs() {}

    /** Whether {@code metadata} is a Symbiont language model's: it names an architecture, or holds a GPT config of before the name. */
    public static boolean describes(Map<String, String> metadata) {
        return metadata.containsKey(CausalLM.ARCHITECTURE) || metadata.containsKey("d_model");
    }

    /**
     * The model {@code metadata} describes, its weights drawn from {@code g} with spread
     * {@code initStd} (to be replaced by a checkpoint's).
     *
     * @throws IllegalArgumentException naming the architecture or the key when the metadata describes no model this version builds
     */
    public static CausalLM fromMetadata(Map<String, String> metadata, Generator g, double initStd) {
        String name = metadata.getOrDefault(CausalLM.ARCHITECTURE, "gpt");
        return switch (name) {
            case "gpt" -> new Gpt(GptConfig.fromMap(metadata), MoeLayers.present(metadata) ? MoeLayers.fromMap(metadata) : null, g, initStd);
            case "mamba", "mamba2" -> new MambaLM(MambaLMConfig.fromMap(metadata), g, initStd);
            default -> throw new IllegalArgumentException("the model's metadata names architecture '" + name
                    + "', which this version does not know (gpt, mamba, mamba2)");
        };
    }
}
