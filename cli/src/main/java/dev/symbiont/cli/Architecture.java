package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.CausalLMs;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.moe.Dispatch;
import dev.symbiont.nn.moe.MoeLayers;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The model families {@code train --arch} builds, and how a saved model's metadata names its
 * family: {@code architecture=mamba} is a {@link MambaLM}, {@code mamba2} one with Mamba-2 mixers; {@code architecture=gpt}, or no such
 * key (runs saved before it existed), is a {@link Gpt}, with mixture-of-experts MLPs when the
 * metadata holds {@code moe_*} keys ({@link MoeLayers#present}).
 */
enum Architecture {
    /** GPT-2: attention and a dense MLP per block. */
    GPT("GPT", List.of("heads")),
    /** Mamba-1: a selective state-space mixer per block, no MLP, no attention. */
    MAMBA("Mamba", List.of("d_state", "d_conv", "expand")),
    /** Mamba-2: the state space duality (chunked SSD) mixer per block, no MLP, no attention. */
    MAMBA2("Mamba-2", List.of("d_state", "d_conv", "expand", "head_dim")),
    /** GPT whose every MLP is a mixture of SwiGLU experts, top-k routed, trained with the load-balancing loss. */
    MOE("MoE GPT", List.of("heads", "experts", "top_k", "shared_experts"));

    /** The run settings that only some families read; each family lists its own. */
    static final List<String> SPECIFIC = List.of("heads", "d_state", "d_conv", "expand", "head_dim", "experts", "top_k", "shared_experts");

    private final String title;
    private final List<String> options;

    Architecture(String title, List<String> options) {
        this.title = title;
        this.options = options;
    }

    /** How output lines name the family. */
    String title() { return title; }

    /** The name {@code --arch} takes and the metadata records. */
    String flag() { return name().toLowerCase(Locale.ROOT); }

    /** Whether this family reads the run setting {@code key} (one of {@link #SPECIFIC}; the rest every family reads). */
    boolean reads(String key) { return !SPECIFIC.contains(key) || options.contains(key); }

    /** Whether training adds the model's auxiliary loss (the routers' load balancing). */
    boolean hasAuxiliaryLoss() { return this == MOE; }

    /** The family {@code --arch name} names. */
    static Architecture parse(String name) {
        for (Architecture a : values()) if (a.flag().equals(name)) return a;
        throw new IllegalArgumentException("--arch must be one of " + String.join(", ", Arrays.stream(values()).map(Architecture::flag).toList())
                + ", got '" + name + "'");
    }

    /** The family of a saved model's metadata. */
    static Architecture of(Map<String, String> metadata) {
        String name = metadata.getOrDefault(CausalLM.ARCHITECTURE, "gpt");
        return switch (name) {
            case "gpt" -> MoeLayers.present(metadata) ? MOE : GPT;
            case "mamba" -> MAMBA;
            case "mamba2" -> MAMBA2;
            default -> throw new IllegalArgumentException("the model's metadata names architecture '" + name + "', which this version does not know");
        };
    }

    /** A fresh model of this family with the run's sizes; weights drawn from {@code g} with spread {@code initStd}. */
    CausalLM create(RunSettings s, int vocab, Generator g, double initStd) {
        int d = s.integer("d_model"), layers = s.integer("layers");
        return switch (this) {
            case GPT -> new Gpt(GptConfig.of(vocab, d, layers, s.integer("heads"), s.context()), g, initStd);
            case MOE -> new Gpt(GptConfig.of(vocab, d, layers, s.integer("heads"), s.context()),
                    moeLayers(d, s.integer("experts"), s.integer("top_k"), s.integer("shared_experts")), g, initStd);
            case MAMBA -> new MambaLM(MambaLMConfig.of(vocab, d, layers, s.integer("d_state"), s.integer("d_conv"), s.integer("expand")), g, initStd);
            case MAMBA2 -> new MambaLM(MambaLMConfig.mamba2(vocab, Mamba2Config.of(d, s.integer("expand"), s.integer("head_dim"), s.integer("d_state"))
                    .withConv(s.integer("d_conv")), layers), g, initStd);
        };
    }

    /**
     * Every layer MoE, dropless, Mixtral's renormalised weights, balancing coefficient 0.01; each
     * expert's hidden width makes the k routed SwiGLU experts (3·d·h weights each) hold the
     * dense GELU MLP's 8·d² weights: h = ⌈8d / 3k⌉, so active parameters match GPT's.
     */
    private static MoeLayers moeLayers(int d, int experts, int topK, int shared) {
        int hidden = (8 * d + 3 * topK - 1) / (3 * topK);
        return new MoeLayers(experts, topK, hidden, Dispatch.dropless(), true, shared, 1, 0.01, 0);
    }

    /** Rebuilds the model a saved metadata describes (weights still to be loaded): {@link CausalLMs#fromMetadata}. */
    static CausalLM load(Map<String, String> metadata, Generator g, double initStd) {
        of(metadata); // the same refusal of an unknown family as --arch's
        return CausalLMs.fromMetadata(metadata, g, initStd);
    }
}
