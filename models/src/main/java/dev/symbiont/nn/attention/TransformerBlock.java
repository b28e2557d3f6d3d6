package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Checkpoint;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Module;

/**
 * A pre-norm Transformer block (GPT-2; Xiong et al. 2020):
 * <pre>
 *   h = x + Attn(Norm₁(x))
 *   y = h + MLP(Norm₂(h))
 * </pre>
 * Keys: {@code norm1}, {@code attn}, {@code norm2}, {@code mlp}. With activation checkpointing
 * on, a training forward keeps only the block's input and recomputes the rest in backward
 * ({@link Checkpoint}); a forward with a KV cache is never checkpointed.
 */
public final class TransformerBlock extends Module {
    private final Layer norm1, norm2;
    private final MultiHeadAttention attn;
    private final FeedForward mlp;
    private boolean checkpointing;

    public TransformerBlock(BlockConfig c, Generator g) {
        this.norm1 = module("norm1", c.norm().create(c.dModel()));
        this.attn = module("attn", new MultiHeadAttention(c, g));
        this.norm2 = module("norm2", c.norm().create(c.dModel()));
        this.mlp = module("mlp", new FeedForward(c, g));
    }

    /**
     * @param x      (batch, seq, dModel)
     * @param mask   null or additive float32 broadcastable to (batch, heads, seq, cached + seq)
     * @param causal causal self-attention
     * @param cache  null or this block's KV-cache slot
     * @return (batch, seq, dModel)
     */
    public Tensor forward(Tensor x, Tensor mask, boolean causal, KvCache.LayerCache cache) {
        if (checkpointing && cache == null) return Checkpoint.run(this, in -> compute(in, mask, causal, null), x);
        return compute(x, mask, causal, cache);
    }

    private Tensor compute(Tensor x, Tensor mask, boolean causal, KvCache.LayerCache cache) {
        Tensor h = x.add(attn.forward(norm1.forward(x), mask, causal, cache));
        return h.add(mlp.forward(norm2.forward(h)));
    }

    /** Turns activation checkpointing of this block on or off; returns this. */
    public TransformerBlock checkpointing(boolean on) {
        checkpointing = on;
        return this;
    }

    public boolean checkpointing() { return checkpointing; }

    public MultiHeadAttention attn() { return attn; }

    public FeedForward mlp() { return mlp; }
}
