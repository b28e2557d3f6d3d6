package dev.symbiont.peft;

import dev.symbiont.core.Tensor;
import dev.symbiont.models.CausalLM;
import dev.symbiont.nn.Parameter;
import dev.symbiont.optim.ParamGroup;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A language model carrying LoRA adapters ({@link Lora#apply}), PEFT's {@code LoraModel}: the
 * model itself, adapted in place (its forward adds each adapter's term; only the adapters are
 * trainable), the adapters by the name of the module they adapt, and what PEFT does with them:
 * count the trainable parameters, merge them into the base weights and back, unload them, and
 * save them in PEFT's layout ({@link PeftLayout}).
 */
public final class LoraModel {
    /** PEFT's prefix of every adapter key: {@code PeftModel.base_model} (the LoRA tuner) then its {@code model}. */
    public static final String KEY_PREFIX = "base_model.model.";

    private final CausalLM model;
    private final ModuleNames names;
    private final LoraConfig config;
    private final Map<String, LoraAdapter> adapters;
    private boolean unloaded;

    LoraModel(CausalLM model, ModuleNames names, LoraConfig config, Map<String, LoraAdapter> adapters) {
        this.model = model;
        this.names = names;
        this.config = config;
        this.adapters = Collections.unmodifiableMap(new LinkedHashMap<>(adapters));
    }

    /** The adapted model: train it, generate with it. */
    public CausalLM model() { return model; }

    /** The config the adapters were made with ({@code fan_in_fan_out} and {@code all-linear} resolved). */
    public LoraConfig config() { return config; }

    /** How adapters name the model's modules. */
    public ModuleNames names() { return names; }

    /** The adapters, by the name of the module each adapts ({@code model.layers.0.self_attn.q_proj}), in module order. */
    public Map<String, LoraAdapter> adapters() { return adapters; }

    /**
     * The adapters' tensors under PEFT's keys: {@code base_model.model.<module>.lora_A.weight} (r, in)
     * and {@code .lora_B.weight} (out, r), as {@code get_peft_model_state_dict} returns them. The
     * tensors are live.
     */
    public Map<String, Tensor> adapterStateDict() {
        Map<String, Tensor> out = new LinkedHashMap<>();
        adapters.forEach((name, a) -> {
            out.put(keyA(name), a.a().value().detach());
            out.put(keyB(name), a.b().value().detach());
        });
        return out;
    }

    static String keyA(String module) { return KEY_PREFIX + module + ".lora_A.weight"; }

    static String keyB(String module) { return KEY_PREFIX + module + ".lora_B.weight"; }

    /**
     * The adapters' parameters by state-dict name in one optimizer group with {@code weightDecay}
     * (A and B are matrices; the frozen base is left out, so the optimizer holds state for the
     * adapters only).
     */
    public List<ParamGroup> parameterGroups(double weightDecay) {
        Map<String, Parameter> trainable = new LinkedHashMap<>();
        model.namedParameters().forEach((k, p) -> { if (!p.frozen()) trainable.put(k, p); });
        return List.of(new ParamGroup("lora", trainable, weightDecay));
    }

    /** Parameters of the model, adapters included (tied ones counted once). */
    public long parameterCount() { return model.parameterCount(); }

    /** Parameters that train: the adapters'. */
    public long trainableParameterCount() { return model.trainableParameterCount(); }

    /** PEFT's {@code print_trainable_parameters} line: "trainable params: 8,192 || all params: 1,060,992 || trainable%: 0.7721". */
    public String trainableParameters() {
        long trainable = trainableParameterCount(), all = parameterCount();
        return String.format(Locale.ROOT, "trainable params: %,d || all params: %,d || trainable%%: %.4f", trainable, all,
                100.0 * trainable / all);
    }

    /** Folds every adapter into its base weight (W += B A · scale); the forward then runs the base layers alone. */
    public void merge() {
        live("merge");
        if (merged()) throw new IllegalStateException("LoraModel.merge: the adapters are merged already");
        adapters.values().forEach(LoraAdapter::merge);
    }

    /** Takes every adapter out of its base weight again (W −= B A · scale; equal to the weight before up to float32 rounding). */
    public void unmerge() {
        live("unmerge");
        if (!merged()) throw new IllegalStateException("LoraModel.unmerge: the adapters are not merged");
        adapters.values().forEach(LoraAdapter::unmerge);
    }

    /** Whether the adapters are folded into the base weights. */
    public boolean merged() { return adapters.values().iterator().next().merged(); }

    /**
     * Merges the adapters into the base weights and removes them: the model as a plain one, whose
     * state dict has the base's keys and which saves in the base's layout (PEFT's
     * {@code merge_and_unload}). Its parameters stay frozen, as PEFT leaves them.
     */
    public CausalLM mergeAndUnload() {
        live("mergeAndUnload");
        if (!merged()) merge();
        detachAll();
        return model;
    }

    /** Removes the adapters without merging them (unmerging first if merged): the base model back, PEFT's {@code unload}. */
    public CausalLM unload() {
        live("unload");
        if (merged()) unmerge();
        detachAll();
        return model;
    }

    private void detachAll() {
        adapters.values().forEach(a -> a.base().detach());
        unloaded = true;
    }

    private void live(String op) {
        if (unloaded) throw new IllegalStateException("LoraModel." + op + ": the adapters were unloaded from the model");
    }

    /** Writes the adapters in PEFT's layout: {@code dir/adapter_config.json} and {@code dir/adapter_model.safetensors}, each atomically. */
    public void save(Path dir) throws IOException {
        live("save");
        PeftLayout.save(this, dir);
    }
}
