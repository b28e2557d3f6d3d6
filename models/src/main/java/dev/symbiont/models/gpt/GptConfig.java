package dev.symbiont.models.gpt;

import dev.symbiont.nn.attention.Biases;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.attention.NormKind;
import dev.symbiont.nn.attention.RopeScaling;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The shape of a {@link Gpt}. GPT-2 small is
 * {@code GptConfig.builder().vocab(50257).dModel(768).layers(12).heads(12).maxSeq(1024).build()}
 * (or positionally {@code GptConfig.of(50257, 768, 12, 12, 1024)}); a Llama-style model sets
 * {@code withNorm(RMS_NORM).withMlp(SWIGLU).withPositions(ROPE).withKvHeads(n)}, and the fields
 * a Hugging Face checkpoint needs beyond those ({@code head_dim}, {@code rms_norm_eps}, biases,
 * separate q/k/v projections, Llama 3.1's RoPE scaling) have fields of their own.
 *
 * @param vocab          token ids lie in [0, vocab)
 * @param dModel         model width
 * @param layers         Transformer blocks
 * @param heads          query heads
 * @param kvHeads        key/value heads; must divide heads (grouped-query attention)
 * @param headDim        width of one head: dModel / heads unless given (Hugging Face's {@code head_dim})
 * @param ffSize         feed-forward hidden width
 * @param maxSeq         the longest sequence (learned-position table size, RoPE table size, generation limit)
 * @param dropout        embedding, attention, residual and MLP dropout, in [0, 1)
 * @param tiedEmbeddings the output head reuses the token embedding (Press and Wolf 2017)
 * @param norm           LayerNorm or RMSNorm
 * @param normEps        the norms' ε: the kind's default ({@link NormKind#defaultEps}) unless given
 * @param mlp            GELU MLP (erf or tanh form) or SwiGLU
 * @param biases         which projections have biases: all with a GELU MLP (GPT-2), none with SwiGLU (Llama) unless given
 * @param fusedQkv       one {@code qkv} projection (GPT-2) rather than {@code q_proj, k_proj, v_proj, out_proj}
 * @param positions      learned positions or RoPE
 * @param ropeTheta      RoPE's frequency base θ (Su et al. 2021, eq. 15: θ_j = θ^(−2j/d)); 10 000 in the paper and
 *                       GPT-NeoX, 500 000 in Llama 3; saved with the config, read by attention only with RoPE
 * @param ropeScaling    how RoPE's frequencies are rescaled (Llama 3.1's long context); {@link RopeScaling#NONE} by default
 */
public record GptConfig(int vocab, int dModel, int layers, int heads, int kvHeads, int headDim, int ffSize, int maxSeq, double dropout,
                        boolean tiedEmbeddings, NormKind norm, double normEps, MlpKind mlp, Biases biases, boolean fusedQkv,
                        PositionKind positions, double ropeTheta, RopeScaling ropeScaling) {
    /** RoPE's base in the paper, and what a config saved without {@code rope_theta} reads as. */
    public static final double DEFAULT_ROPE_THETA = 10_000;

    public GptConfig {
        positive("vocab", vocab);
        positive("dModel", dModel);
        positive("layers", layers);
        positive("heads", heads);
        positive("kvHeads", kvHeads);
        positive("headDim", headDim);
        positive("ffSize", ffSize);
        positive("maxSeq", maxSeq);
        if (kvHeads > heads || heads % kvHeads != 0) {
            throw new IllegalArgumentException("GptConfig: kvHeads (" + kvHeads + ") must divide heads (" + heads + ")");
        }
        if (!(dropout >= 0 && dropout < 1)) throw new IllegalArgumentException("GptConfig: dropout must be in [0, 1), got " + dropout);
        if (norm == null || mlp == null || positions == null || biases == null || ropeScaling == null) {
            throw new IllegalArgumentException("GptConfig: norm, mlp, positions, biases and ropeScaling must be given, got " + norm + ", "
                    + mlp + ", " + positions + ", " + biases + ", " + ropeScaling);
        }
        if (!(normEps > 0) || Double.isInfinite(normEps)) throw new IllegalArgumentException("GptConfig: normEps must be finite and > 0, got " + normEps);
        if (positions == PositionKind.ROPE && headDim % 2 != 0) {
            throw new IllegalArgumentException("GptConfig: RoPE needs an even head size, got headDim " + headDim
                    + (headDim * heads == dModel ? " = dModel / heads = " + dModel + " / " + heads : ""));
        }
        if (!(ropeTheta > 1) || Double.isInfinite(ropeTheta)) {
            throw new IllegalArgumentException("GptConfig: ropeTheta must be finite and > 1, got " + ropeTheta);
        }
    }

    private static void positive(String name, int value) {
        if (value <= 0) throw new IllegalArgumentException("GptConfig: " + name + " must be positive, got " + value);
    }

    /**
     * GPT-2's choices: kvHeads = heads, ffSize = 4·dModel, no dropout, tied embeddings, LayerNorm, GELU, learned positions.
     * {@link #builder()} gives the same config by named fields.
     */
    public static GptConfig of(int vocab, int dModel, int layers, int heads, int maxSeq) {
        return builder().vocab(vocab).dModel(dModel).layers(layers).heads(heads).maxSeq(maxSeq).build();
    }

    /** The configuration of each block. */
    public BlockConfig blockConfig() {
        return new BlockConfig(dModel, heads, kvHeads, headDim, ffSize, dropout, norm, normEps, mlp, fusedQkv, biases,
                positions == PositionKind.ROPE ? maxSeq : 0, ropeTheta, ropeScaling);
    }

    public GptConfig withKvHeads(int n) { return with(b -> b.kvHeads = n); }
    public GptConfig withHeadDim(int n) { return with(b -> b.headDim = n); }
    public GptConfig withFfSize(int n) { return with(b -> b.ffSize = n); }
    public GptConfig withDropout(double p) { return with(b -> b.dropout = p); }
    public GptConfig withTiedEmbeddings(boolean on) { return with(b -> b.tiedEmbeddings = on); }
    /** The norm kind with its default ε. */
    public GptConfig withNorm(NormKind n) { return with(b -> { b.norm = n; b.normEps = null; }); }
    public GptConfig withNormEps(double eps) { return with(b -> b.normEps = eps); }
    /** The MLP kind with its default biases (all for GELU, none for SwiGLU). */
    public GptConfig withMlp(MlpKind m) { return with(b -> { b.mlp = m; b.biases = null; }); }
    public GptConfig withBiases(Biases biases) { return with(b -> b.biases = biases); }
    public GptConfig withFusedQkv(boolean on) { return with(b -> b.fusedQkv = on); }
    public GptConfig withPositions(PositionKind p) { return with(b -> b.positions = p); }
    public GptConfig withRopeTheta(double theta) { return with(b -> b.ropeTheta = theta); }
    public GptConfig withRopeScaling(RopeScaling s) { return with(b -> b.ropeScaling = s); }

    /** This config with the fields {@code change} sets, validated like any config. */
    private GptConfig with(Consumer<Builder> change) {
        Builder b = new Builder(this);
        change.accept(b);
        return b.build();
    }

    /**
     * A config by named fields, so that code reads without counting positional ints:
     * {@code GptConfig.builder().vocab(50257).dModel(768).layers(12).heads(12).maxSeq(1024).build()}.
     * vocab, dModel, layers, heads and maxSeq are required; the rest default to GPT-2's choices
     * as in {@link #of}: kvHeads = heads, headDim = dModel / heads, ffSize = 4·dModel, no dropout,
     * tied embeddings, LayerNorm with its ε, GELU with biases, fused qkv, learned positions.
     */
    public static Builder builder() { return new Builder(); }

    /** The fields of a {@link GptConfig} by name; {@link #build} validates them like any config. */
    public static final class Builder {
        private Integer vocab, dModel, layers, heads, maxSeq; // required: null until set
        private Integer kvHeads, headDim, ffSize; // null: derived from heads and dModel
        private Double normEps; // null: the norm kind's default
        private Biases biases; // null: derived from the MLP kind
        private double dropout, ropeTheta = DEFAULT_ROPE_THETA;
        private boolean tiedEmbeddings = true, fusedQkv = true;
        private NormKind norm = NormKind.LAYER_NORM;
        private MlpKind mlp = MlpKind.GELU;
        private PositionKind positions = PositionKind.LEARNED;
        private RopeScaling ropeScaling = RopeScaling.NONE;

        private Builder() {}

        private Builder(GptConfig c) {
            vocab = c.vocab; dModel = c.dModel; layers = c.layers; heads = c.heads; kvHeads = c.kvHeads; headDim = c.headDim;
            ffSize = c.ffSize; maxSeq = c.maxSeq; dropout = c.dropout; tiedEmbeddings = c.tiedEmbeddings; norm = c.norm;
            normEps = c.normEps; mlp = c.mlp; biases = c.biases; fusedQkv = c.fusedQkv; positions = c.positions;
            ropeTheta = c.ropeTheta; ropeScaling = c.ropeScaling;
        }

        public Builder vocab(int n) { vocab = n; return this; }
        public Builder dModel(int n) { dModel = n; return this; }
        public Builder layers(int n) { layers = n; return this; }
        public Builder heads(int n) { heads = n; return this; }
        public Builder maxSeq(int n) { maxSeq = n; return this; }
        public Builder kvHeads(int n) { kvHeads = n; return this; }
        public Builder headDim(int n) { headDim = n; return this; }
        public Builder ffSize(int n) { ffSize = n; return this; }
        public Builder dropout(double p) { dropout = p; return this; }
        public Builder tiedEmbeddings(boolean on) { tiedEmbeddings = on; return this; }
        public Builder norm(NormKind n) { norm = n; return this; }
        public Builder normEps(double eps) { normEps = eps; return this; }
        public Builder mlp(MlpKind m) { mlp = m; return this; }
        public Builder biases(Biases b) { biases = b; return this; }
        public Builder fusedQkv(boolean on) { fusedQkv = on; return this; }
        public Builder positions(PositionKind p) { positions = p; return this; }
        public Builder ropeTheta(double theta) { ropeTheta = theta; return this; }
        public Builder ropeScaling(RopeScaling s) { ropeScaling = s; return this; }

        /** The config; a required field left unset is an error naming it. */
        public GptConfig build() {
            List<String> missing = new ArrayList<>();
            String[] names = {"vocab", "dModel", "layers", "heads", "maxSeq"};
            Integer[] values = {vocab, dModel, layers, heads, maxSeq};
            for (int i = 0; i < names.length; i++) if (values[i] == null) missing.add(names[i]);
            if (!missing.isEmpty()) {
                throw new IllegalArgumentException("GptConfig.builder(): " + String.join(", ", missing) + " not set; "
                        + String.join(", ", names) + " are required");
            }
            if (headDim == null && (heads <= 0 || dModel % heads != 0)) {
                throw new IllegalArgumentException("GptConfig: heads (" + heads + ") must divide dModel (" + dModel + ")");
            }
            return new GptConfig(vocab, dModel, layers, heads, kvHeads == null ? heads : kvHeads, headDim == null ? dModel / heads : headDim,
                    ffSize == null ? 4 * dModel : ffSize, maxSeq, dropout, tiedEmbeddings, norm,
                    normEps != null ? normEps : norm == null ? 1 : norm.defaultEps(), mlp,
                    biases != null ? biases : Biases.all(mlp != null && mlp.isGelu()), fusedQkv, positions, ropeTheta, ropeScaling);
        }
    }

    // ---- string map (checkpoint metadata) -------------------------------------------------------

    /**
     * The config as string pairs for checkpoint metadata (safetensors' {@code __metadata__}), read
     * back by {@link #fromMap}; the keys are {@link GptConfigMap}'s.
     */
    public Map<String, String> toMap() { return GptConfigMap.toMap(this); }

    /**
     * Reads a config written by {@link #toMap()}; keys added after the first version read as the
     * values configs had before them. Other keys (the rest of a checkpoint's metadata) are
     * ignored. A missing key or an unreadable value throws naming the key; the result is
     * validated like any config.
     */
    public static GptConfig fromMap(Map<String, String> m) { return GptConfigMap.fromMap(m); }
}
