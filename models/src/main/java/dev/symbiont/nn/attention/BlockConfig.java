package dev.symbiont.nn.attention;

import dev.symbiont.nn.Layer;

import java.util.function.Consumer;

/**
 * The shape of one Transformer block ({@link TransformerBlock}), shared by every block of a stack.
 *
 * @param dModel      model width
 * @param heads       query heads
 * @param kvHeads     key/value heads (grouped-query attention, Ainslie et al. 2023): 1 to heads, dividing heads;
 *                    equal to heads is plain multi-head attention, 1 is multi-query attention
 * @param headDim     width of one head; dModel / heads unless a model says otherwise (Hugging Face's {@code head_dim}),
 *                    so attention works in heads·headDim, projected from and back to dModel
 * @param ffSize      hidden width of the feed-forward layer
 * @param dropout     probability for attention, residual and MLP dropout, in [0, 1)
 * @param norm        LayerNorm or RMSNorm
 * @param normEps     the norms' ε
 * @param mlp         GELU MLP (erf or tanh form) or SwiGLU
 * @param fusedQkv    one {@code qkv} projection (GPT-2, timm) instead of {@code q_proj/k_proj/v_proj}
 * @param biases      which projections carry a bias
 * @param ropeMaxSeq  0 for no rotary embedding, otherwise the longest position + 1 RoPE is applied at
 * @param ropeBase    RoPE's frequency base θ (10 000 in Su et al. 2021)
 * @param ropeScaling how RoPE's frequencies are rescaled ({@link RopeScaling#NONE} for the paper's)
 */
public record BlockConfig(int dModel, int heads, int kvHeads, int headDim, int ffSize, double dropout, NormKind norm, double normEps,
                          MlpKind mlp, boolean fusedQkv, Biases biases, int ropeMaxSeq, double ropeBase, RopeScaling ropeScaling) {
    public BlockConfig {
        if (dModel <= 0 || heads <= 0 || kvHeads <= 0 || headDim <= 0 || ffSize <= 0) {
            throw new IllegalArgumentException("BlockConfig: dModel, heads, kvHeads, headDim and ffSize must be positive, got "
                    + dModel + ", " + heads + ", " + kvHeads + ", " + headDim + ", " + ffSize);
        }
        if (kvHeads > heads || heads % kvHeads != 0) {
            throw new IllegalArgumentException("BlockConfig: kvHeads (" + kvHeads + ") must divide heads (" + heads + ")");
        }
        if ((long) heads * headDim > Integer.MAX_VALUE / 4) {
            throw new IllegalArgumentException("BlockConfig: heads " + heads + " × headDim " + headDim + " is too wide");
        }
        if (!(dropout >= 0 && dropout < 1)) throw new IllegalArgumentException("BlockConfig: dropout must be in [0, 1), got " + dropout);
        if (norm == null || mlp == null || biases == null || ropeScaling == null) {
            throw new IllegalArgumentException("BlockConfig: norm, mlp, biases and ropeScaling must be given");
        }
        if (!(normEps > 0) || Double.isInfinite(normEps)) {
            throw new IllegalArgumentException("BlockConfig: normEps must be finite and > 0, got " + normEps);
        }
        if (ropeMaxSeq < 0) throw new IllegalArgumentException("BlockConfig: ropeMaxSeq must be >= 0, got " + ropeMaxSeq);
        if (ropeMaxSeq > 0 && headDim % 2 != 0) {
            throw new IllegalArgumentException("BlockConfig: RoPE needs an even head size, got headDim " + headDim);
        }
        if (ropeMaxSeq > 0 && !(ropeBase > 1)) throw new IllegalArgumentException("BlockConfig: ropeBase must be > 1, got " + ropeBase);
    }

    /**
     * GPT-2's defaults: multi-head attention of heads of dModel / heads, no dropout, LayerNorm
     * (ε = 1e-5), GELU MLP, fused qkv with biases everywhere, no RoPE.
     */
    public static BlockConfig of(int dModel, int heads, int ffSize) {
        if (heads <= 0 || dModel % heads != 0) {
            throw new IllegalArgumentException("BlockConfig: heads (" + heads + ") must divide dModel (" + dModel + ")");
        }
        return new BlockConfig(dModel, heads, heads, dModel / heads, ffSize, 0, NormKind.LAYER_NORM, NormKind.LAYER_NORM.defaultEps(),
                MlpKind.GELU, true, Biases.ALL, 0, 10_000, RopeScaling.NONE);
    }

    /** Whether attention applies rotary position embeddings. */
    public boolean rope() { return ropeMaxSeq > 0; }

    /** A fresh norm of this block's kind and ε over dModel. */
    public Layer newNorm() { return norm.create(dModel, normEps); }

    /** The shared rotary embedding of a stack of such blocks, or null without RoPE. */
    public RotaryEmbedding newRope() { return rope() ? new RotaryEmbedding(headDim, ropeMaxSeq, ropeBase, ropeScaling) : null; }

    public BlockConfig withKvHeads(int n) { return with(f -> f.kvHeads = n); }
    public BlockConfig withHeadDim(int n) { return with(f -> f.headDim = n); }
    public BlockConfig withDropout(double p) { return with(f -> f.dropout = p); }
    /** The norm kind with its default ε ({@link NormKind#defaultEps}). */
    public BlockConfig withNorm(NormKind n) { return with(f -> { f.norm = n; f.normEps = n == null ? f.normEps : n.defaultEps(); }); }
    public BlockConfig withNorm(NormKind n, double eps) { return with(f -> { f.norm = n; f.normEps = eps; }); }
    /** The MLP kind with its default bias: a GELU MLP's projections have one, SwiGLU's not (attention's biases are kept). */
    public BlockConfig withMlp(MlpKind m) {
        return with(f -> { f.mlp = m; f.biases = m == null ? f.biases : new Biases(f.biases.qkv(), f.biases.out(), m.isGelu()); });
    }
    public BlockConfig withFusedQkv(boolean on) { return with(f -> f.fusedQkv = on); }
    /** Biases on every projection, or none. */
    public BlockConfig withBias(boolean on) { return with(f -> f.biases = Biases.all(on)); }
    public BlockConfig withBiases(Biases b) { return with(f -> f.biases = b); }
    /** RoPE over positions 0..maxSeq-1 (0: none), keeping the base. */
    public BlockConfig withRope(int maxSeq) { return with(f -> f.ropeMaxSeq = maxSeq); }
    /** RoPE over positions 0..maxSeq-1 (0: none) with frequency base θ = {@code base}. */
    public BlockConfig withRope(int maxSeq, double base) { return with(f -> { f.ropeMaxSeq = maxSeq; f.ropeBase = base; }); }
    public BlockConfig withRopeScaling(RopeScaling s) { return with(f -> f.ropeScaling = s); }

    /** This config with the fields {@code change} sets, validated like any config. */
    private BlockConfig with(Consumer<Fields> change) { return new Fields(this).apply(change); }

    /** The record's fields as variables, so a with-method states only its own change. */
    private static final class Fields {
        int dModel, heads, kvHeads, headDim, ffSize, ropeMaxSeq;
        double dropout, normEps, ropeBase;
        NormKind norm;
        MlpKind mlp;
        boolean fusedQkv;
        Biases biases;
        RopeScaling ropeScaling;

        Fields(BlockConfig c) {
            dModel = c.dModel; heads = c.heads; kvHeads = c.kvHeads; headDim = c.headDim; ffSize = c.ffSize; dropout = c.dropout;
            norm = c.norm; normEps = c.normEps; mlp = c.mlp; fusedQkv = c.fusedQkv; biases = c.biases; ropeMaxSeq = c.ropeMaxSeq;
            ropeBase = c.ropeBase; ropeScaling = c.ropeScaling;
        }

        BlockConfig apply(Consumer<Fields> change) {
            change.accept(this);
            return new BlockConfig(dModel, heads, kvHeads, headDim, ffSize, dropout, norm, normEps, mlp, fusedQkv, biases, ropeMaxSeq,
                    ropeBase, ropeScaling);
        }
    }
}
