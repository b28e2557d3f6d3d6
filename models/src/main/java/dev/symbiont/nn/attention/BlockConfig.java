package dev.symbiont.nn.attention;

import java.util.function.Consumer;

/**
 * The shape of one Transformer block ({@link TransformerBlock}), shared by every block of a stack.
 *
 * @param dModel     model width; each of the {@code heads} query heads is dModel / heads wide
 * @param heads      query heads
 * @param kvHeads    key/value heads (grouped-query attention, Ainslie et al. 2023): 1 to heads, dividing heads;
 *                   equal to heads is plain multi-head attention, 1 is multi-query attention
 * @param ffSize     hidden width of the feed-forward layer
 * @param dropout    probability for attention, residual and MLP dropout, in [0, 1)
 * @param norm       LayerNorm or RMSNorm
 * @param mlp        GELU MLP or SwiGLU
 * @param fusedQkv   one {@code qkv} projection (GPT-2, timm) instead of {@code q_proj/k_proj/v_proj}
 * @param bias       biases in the attention projections and the GELU MLP (SwiGLU never has them)
 * @param ropeMaxSeq 0 for no rotary embedding, otherwise the longest position + 1 RoPE is applied at
 * @param ropeBase   RoPE's frequency base θ (10 000 in Su et al. 2021)
 */
public record BlockConfig(int dModel, int heads, int kvHeads, int ffSize, double dropout, NormKind norm, MlpKind mlp,
                          boolean fusedQkv, boolean bias, int ropeMaxSeq, double ropeBase) {
    public BlockConfig {
        if (dModel <= 0 || heads <= 0 || kvHeads <= 0 || ffSize <= 0) {
            throw new IllegalArgumentException("BlockConfig: dModel, heads, kvHeads and ffSize must be positive, got "
                    + dModel + ", " + heads + ", " + kvHeads + ", " + ffSize);
        }
        if (dModel % heads != 0) {
            throw new IllegalArgumentException("BlockConfig: heads (" + heads + ") must divide dModel (" + dModel + ")");
        }
        if (kvHeads > heads || heads % kvHeads != 0) {
            throw new IllegalArgumentException("BlockConfig: kvHeads (" + kvHeads + ") must divide heads (" + heads + ")");
        }
        if (!(dropout >= 0 && dropout < 1)) throw new IllegalArgumentException("BlockConfig: dropout must be in [0, 1), got " + dropout);
        if (norm == null || mlp == null) throw new IllegalArgumentException("BlockConfig: norm and mlp kinds must be given");
        if (ropeMaxSeq < 0) throw new IllegalArgumentException("BlockConfig: ropeMaxSeq must be >= 0, got " + ropeMaxSeq);
        if (ropeMaxSeq > 0 && (dModel / heads) % 2 != 0) {
            throw new IllegalArgumentException("BlockConfig: RoPE needs an even head size, got dModel / heads = " + dModel / heads);
        }
        if (ropeMaxSeq > 0 && !(ropeBase > 1)) throw new IllegalArgumentException("BlockConfig: ropeBase must be > 1, got " + ropeBase);
    }

    /** GPT-2's defaults: multi-head attention, no dropout, LayerNorm, GELU MLP, fused qkv with biases, no RoPE. */
    public static BlockConfig of(int dModel, int heads, int ffSize) {
        return new BlockConfig(dModel, heads, heads, ffSize, 0, NormKind.LAYER_NORM, MlpKind.GELU, true, true, 0, 10_000);
    }

    /** Width of one head: dModel / heads. */
    public int headDim() { return dModel / heads; }

    /** Whether attention applies rotary position embeddings. */
    public boolean rope() { return ropeMaxSeq > 0; }

    public BlockConfig withKvHeads(int n) { return with(f -> f.kvHeads = n); }
    public BlockConfig withDropout(double p) { return with(f -> f.dropout = p); }
    public BlockConfig withNorm(NormKind n) { return with(f -> f.norm = n); }
    public BlockConfig withMlp(MlpKind m) { return with(f -> f.mlp = m); }
    public BlockConfig withFusedQkv(boolean on) { return with(f -> f.fusedQkv = on); }
    public BlockConfig withBias(boolean on) { return with(f -> f.bias = on); }
    /** RoPE over positions 0..maxSeq-1 (0: none), keeping the base. */
    public BlockConfig withRope(int maxSeq) { return with(f -> f.ropeMaxSeq = maxSeq); }
    /** RoPE over positions 0..maxSeq-1 (0: none) with frequency base θ = {@code base}. */
    public BlockConfig withRope(int maxSeq, double base) { return with(f -> { f.ropeMaxSeq = maxSeq; f.ropeBase = base; }); }

    /** This config with the fields {@code change} sets, validated like any config. */
    private BlockConfig with(Consumer<Fields> change) { return new Fields(this).apply(change); }

    /** The record's fields as variables, so a with-method states only its own change. */
    private static final class Fields {
        int dModel, heads, kvHeads, ffSize, ropeMaxSeq;
        double dropout, ropeBase;
        NormKind norm;
        MlpKind mlp;
        boolean fusedQkv, bias;

        Fields(BlockConfig c) {
            dModel = c.dModel; heads = c.heads; kvHeads = c.kvHeads; ffSize = c.ffSize; dropout = c.dropout; norm = c.norm; mlp = c.mlp;
            fusedQkv = c.fusedQkv; bias = c.bias; ropeMaxSeq = c.ropeMaxSeq; ropeBase = c.ropeBase;
        }

        BlockConfig apply(Consumer<Fields> change) {
            change.accept(this);
            return new BlockConfig(dModel, heads, kvHeads, ffSize, dropout, norm, mlp, fusedQkv, bias, ropeMaxSeq, ropeBase);
        }
    }
}
