package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import dev.symbiont.core.Generator;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.mamba.MambaConfig;
import dev.symbiont.nn.mamba.StateSpaceConfig;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The state-space language models: Mamba ({@code MambaForCausalLM}, the {@code state-spaces/mamba-*-hf}
 * checkpoints) and Mamba-2 ({@code Mamba2ForCausalLM}), run as a {@link MambaLM}, whose state-dict
 * keys are already transformers': {@code backbone.embeddings}, {@code backbone.layers.i.norm},
 * {@code backbone.layers.i.mixer.*}, {@code backbone.norm_f}, {@code lm_head} (left out of the file
 * when tied, as transformers saves it). The mixers have no in_proj/out_proj biases and a conv bias
 * ({@code use_bias = false}, {@code use_conv_bias = true}, the published checkpoints'); other
 * values are refused naming the field. {@code residual_in_fp32} needs nothing: Symbiont keeps the
 * residual in float32, the dtype it loads weights in. Mamba-2's {@code time_step_limit} must be
 * transformers' default [0, ∞) (no clamp); its {@code rms_norm}, {@code norm_before_gate} and
 * {@code time_step_rank} are read by transformers' forward neither, and not here.
 *
 * @param tiedByDefault the config class's {@code tie_word_embeddings} default (MambaConfig's true, Mamba2Config's false)
 * @param biasByDefault the config class's {@code use_bias} default (MambaConfig's true, Mamba2Config's false)
 * @param mixer         the mixer's sizes from the config
 */
record MambaFamily(String name, String modelType, boolean tiedByDefault, boolean biasByDefault, Function<HfConfig, StateSpaceConfig> mixer)
        implements HfArchitecture {
    static final MambaFamily MAMBA = new MambaFamily("MambaForCausalLM", "mamba", true, true, MambaFamily::mamba);
    static final MambaFamily MAMBA2 = new MambaFamily("Mamba2ForCausalLM", "mamba2", false, false, MambaFamily::mamba2);

    /** The model's keys are the checkpoint's. */
    private static final KeyMap KEYS = new KeyMap(List.of(new KeyMap.Rule("backbone", "backbone", false),
            new KeyMap.Rule("lm_head", "lm_head", false)));

    @Override
    public HfModelPlan plan(HfConfig c, Set<String> fileKeys) {
        HfConfigChecks.requireSiluUnquantized(c, name);
        if (c.bool("use_bias", biasByDefault)) {
            throw c.unsupported(name, "use_bias", true, "false: in_proj and out_proj without biases, as the published checkpoints have them");
        }
        if (!c.bool("use_conv_bias", true)) throw c.unsupported(name, "use_conv_bias", false, "true");
        StateSpaceConfig m = HfConfigChecks.valid(c, () -> mixer.apply(c));
        MambaLMConfig config = HfConfigChecks.valid(c, () -> new MambaLMConfig(c.positive("vocab_size"), c.positive("num_hidden_layers"), m,
                c.real("layer_norm_epsilon", 1e-5), c.bool("tie_word_embeddings", tiedByDefault)));
        return new HfModelPlan(() -> new MambaLM(config, new Generator(0)), KEYS,
                config.tiedEmbeddings() ? Set.of("lm_head.weight") : Set.of(), key -> false);
    }

    /** MambaConfig: intermediate_size (else expand · hidden_size), state_size, conv_kernel, time_step_rank ("auto": ⌈hidden/16⌉). */
    private static StateSpaceConfig mamba(HfConfig c) {
        int hidden = c.positive("hidden_size"), expand = c.positive("expand", 2);
        JsonNode rank = c.node("time_step_rank");
        int dtRank = rank == null || (rank.isTextual() && rank.asText().equals("auto")) ? (hidden + 15) / 16 : c.positive("time_step_rank");
        return new MambaConfig(hidden, c.positive("intermediate_size", expand * hidden), c.positive("state_size", 16), dtRank,
                c.positive("conv_kernel", 4));
    }

    /** Mamba2Config: num_heads · head_dim must be expand · hidden_size, which transformers' mixer assumes. */
    private static StateSpaceConfig mamba2(HfConfig c) {
        int hidden = c.positive("hidden_size"), expand = c.positive("expand", 2);
        int heads = c.positive("num_heads", 128), headDim = c.positive("head_dim", 64);
        if ((long) heads * headDim != (long) expand * hidden) {
            throw new IllegalArgumentException(c.file() + ": num_heads · head_dim = " + heads + " · " + headDim + " differs from expand · "
                    + "hidden_size = " + expand + " · " + hidden + ", the inner width Mamba2ForCausalLM splits into heads");
        }
        checkTimeStepLimit(c);
        return new Mamba2Config(hidden, heads, headDim, c.positive("state_size", 128), c.positive("n_groups", 8), c.positive("conv_kernel", 4),
                c.positive("chunk_size", 256));
    }

    /** time_step_limit: absent or [0, Infinity], which leaves Δ unclamped; a clamp is not implemented. */
    private static void checkTimeStepLimit(HfConfig c) {
        JsonNode limit = c.node("time_step_limit");
        if (limit == null) return;
        boolean unclamped = limit.isArray() && limit.size() == 2 && limit.get(0).isNumber() && limit.get(0).doubleValue() == 0
                && limit.get(1).isNumber() && limit.get(1).doubleValue() == Double.POSITIVE_INFINITY;
        if (!unclamped) throw c.unsupported("Mamba2ForCausalLM", "time_step_limit", limit, "[0.0, Infinity], no clamp of Δ");
    }
}
