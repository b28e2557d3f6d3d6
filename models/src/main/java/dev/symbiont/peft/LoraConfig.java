package dev.symbiont.peft;

/**
 * PEFT's {@code LoraConfig} for causal language models, with its field names: rank {@code r},
 * {@code lora_alpha} (the term is scaled by α / r, or α / √r with {@code use_rslora}),
 * {@code lora_dropout} on the adapter's input, and {@code target_modules}. Biases stay frozen
 * ({@code bias = "none"}); {@code fan_in_fan_out} is true where the adapted weights are GPT-2
 * Conv1Ds, which {@link Lora#apply} finds out, as PEFT corrects it with a warning.
 * {@code base_model_name_or_path} is written into {@code adapter_config.json} (null: none).
 *
 * <pre>
 *   LoraConfig c = LoraConfig.of(8, 16, 0.05, "q_proj", "v_proj");
 * </pre>
 *
 * @param r                    the rank of A (r, in) and B (out, r)
 * @param loraAlpha            α
 * @param loraDropout          dropout probability on the adapter's input, in [0, 1)
 * @param targetModules        which linear layers get adapters
 * @param useRslora            scale by α / √r (rank-stabilised LoRA) instead of α / r
 * @param fanInFanOut          the adapted layers store their weight (in, out) (GPT-2's Conv1D)
 * @param baseModelNameOrPath  the base model, as adapter_config.json names it; may be null
 */
public record LoraConfig(int r, double loraAlpha, double loraDropout, TargetModules targetModules, boolean useRslora,
                         boolean fanInFanOut, String baseModelNameOrPath) {
    public LoraConfig {
        if (r <= 0) throw new IllegalArgumentException("LoraConfig: r must be a positive integer, got " + r);
        if (!Double.isFinite(loraAlpha) || loraAlpha <= 0) throw new IllegalArgumentException("LoraConfig: lora_alpha must be positive, got " + loraAlpha);
        if (!(loraDropout >= 0 && loraDropout < 1)) throw new IllegalArgumentException("LoraConfig: lora_dropout must be in [0, 1), got " + loraDropout);
        if (targetModules == null) throw new IllegalArgumentException("LoraConfig: target_modules is required");
    }

    /** Rank, α, dropout and the listed target modules; the rest as PEFT's defaults. */
    public static LoraConfig of(int r, double loraAlpha, double loraDropout, String... targetModules) {
        return of(r, loraAlpha, loraDropout, TargetModules.of(targetModules));
    }

    public static LoraConfig of(int r, double loraAlpha, double loraDropout, TargetModules targetModules) {
        return new LoraConfig(r, loraAlpha, loraDropout, targetModules, false, false, null);
    }

    /** The factor of the low-rank term: α / r, or α / √r with rsLoRA. */
    public double scaling() { return useRslora ? loraAlpha / Math.sqrt(r) : loraAlpha / r; }

    public LoraConfig withRslora(boolean on) { return new LoraConfig(r, loraAlpha, loraDropout, targetModules, on, fanInFanOut, baseModelNameOrPath); }

    public LoraConfig withTargetModules(TargetModules t) { return new LoraConfig(r, loraAlpha, loraDropout, t, useRslora, fanInFanOut, baseModelNameOrPath); }

    public LoraConfig withFanInFanOut(boolean on) { return new LoraConfig(r, loraAlpha, loraDropout, targetModules, useRslora, on, baseModelNameOrPath); }

    public LoraConfig withBaseModel(String nameOrPath) { return new LoraConfig(r, loraAlpha, loraDropout, targetModules, useRslora, fanInFanOut, nameOrPath); }
}
