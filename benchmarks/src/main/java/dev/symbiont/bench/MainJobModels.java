package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.nn.moe.MoeLayers;

/**
 * The models {@code symbiont train} builds with its defaults on the shipped corpus: the char GPT
 * ({@code --arch gpt}: vocab 73, d_model 128, 4 layers, 4 heads, context 128, init spread 0.08)
 * and the MoE GPT ({@code --arch moe}: the same with every MLP a mixture of 8 SwiGLU experts,
 * top-2, dropless, each expert's hidden width ⌈8d / 3k⌉ = 171 so the active parameters match
 * the GPT's).
 */
enum MainJobModels {
    GPT("gpt"),
    MOE("moe");

    static final int VOCAB = MainJobProfile.VOCAB, D_MODEL = MainJobProfile.D_MODEL, LAYERS = MainJobProfile.LAYERS,
            HEADS = MainJobProfile.HEADS, CONTEXT = MainJobProfile.CONTEXT, BATCH = MainJobProfile.BATCH;
    static final int EXPERTS = 8, TOP_K = 2;
    static final double INIT_STD = 0.08;

    private final String flag;

    MainJobModels(String flag) { this.flag = flag; }

    /** The {@code --arch} value. */
    String flag() { return flag; }

    static MainJobModels parse(String flag) {
        for (MainJobModels m : values()) if (m.flag.equals(flag)) return m;
        throw new IllegalArgumentException("model must be gpt or moe, got '" + flag + "'");
    }

    /** A fresh model drawn from {@code seed}. */
    Gpt create(long seed) {
        GptConfig config = GptConfig.of(VOCAB, D_MODEL, LAYERS, HEADS, CONTEXT);
        MoeLayers moe = this == MOE ? MoeLayers.of(EXPERTS, TOP_K, (8 * D_MODEL + 3 * TOP_K - 1) / (3 * TOP_K)) : null;
        return new Gpt(config, moe, new Generator(seed), INIT_STD);
    }
}
