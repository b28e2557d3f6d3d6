package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.models.gpt.PositionKind;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.moe.MoeLayers;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The language-model families {@code compare} puts side by side, each at about 0.4 M
 * parameters of width 128 over a byte vocabulary, so that their costs differ by architecture
 * and not by size: GPT (2 blocks, 4 heads, RoPE so that no position table grows with the
 * length), Mamba-1 and Mamba-2 (3 blocks each, the papers' defaults at this width: about GPT's
 * parameters), and the MoE GPT (every MLP E = 8 SwiGLU experts, top-2) twice — at GPT's
 * <i>active</i> parameters (each token's k experts hold the dense MLP's 8·d² weights) and at its
 * <i>total</i> parameters (all E experts together hold them).
 */
public enum LmFamily {
    GPT("gpt", "GPT"),
    MAMBA("mamba", "Mamba-1"),
    MAMBA2("mamba2", "Mamba-2"),
    MOE_ACTIVE("moe-active", "MoE GPT (equal active)"),
    MOE_TOTAL("moe-total", "MoE GPT (equal total)");

    static final int VOCAB = 256, D_MODEL = 128, HEADS = 4, GPT_LAYERS = 2, MAMBA_LAYERS = 3, EXPERTS = 8, TOP_K = 2;

    private final String id, title;

    LmFamily(String id, String title) {
        this.id = id;
        this.title = title;
    }

    /** The name in results.json and on the command line. */
    public String id() { return id; }

    /** The name in the report. */
    public String title() { return title; }

    /** Whether the family's sequence mixer is attention (its cost grows with the square of the length). */
    public boolean attends() { return this != MAMBA && this != MAMBA2; }

    /** A fresh model that reads up to {@code maxSeq} tokens. */
    public CausalLM create(int maxSeq, Generator g) {
        GptConfig gpt = GptConfig.of(VOCAB, D_MODEL, GPT_LAYERS, HEADS, maxSeq).withPositions(PositionKind.ROPE);
        return switch (this) {
            case GPT -> new Gpt(gpt, g);
            case MAMBA -> new MambaLM(MambaLMConfig.of(VOCAB, D_MODEL, MAMBA_LAYERS), g);
            case MAMBA2 -> new MambaLM(MambaLMConfig.mamba2(VOCAB, Mamba2Config.of(D_MODEL), MAMBA_LAYERS), g);
            case MOE_ACTIVE -> new Gpt(gpt, MoeLayers.of(EXPERTS, TOP_K, expertHidden(TOP_K)), g, Gpt.GPT2_INIT_STD);
            case MOE_TOTAL -> new Gpt(gpt, MoeLayers.of(EXPERTS, TOP_K, expertHidden(EXPERTS)), g, Gpt.GPT2_INIT_STD);
        };
    }

    /** The expert width at which {@code experts} SwiGLU experts (3·d·h weights each) hold the dense GELU MLP's 8·d². */
    static int expertHidden(int experts) { return (8 * D_MODEL + 3 * experts - 1) / (3 * experts); }

    /** The families named by their ids, comma-separated; an unknown name throws listing the known ones. */
    public static List<LmFamily> parse(String ids) {
        return Arrays.stream(ids.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(LmFamily::byId).toList();
    }

    static LmFamily byId(String id) {
        for (LmFamily f : values()) if (f.id.equals(id.toLowerCase(Locale.ROOT))) return f;
        throw new IllegalArgumentException("unknown family '" + id + "': the language-model families are "
                + String.join(", ", Arrays.stream(values()).map(LmFamily::id).toList()));
    }
}
