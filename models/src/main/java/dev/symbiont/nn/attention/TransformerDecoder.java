package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.ModuleList;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A decoder-only stack (GPT): causal self-attention blocks and a final norm, with no
 * cross-attention. Keys: {@code blocks.<i>.…} ({@link TransformerBlock}) and {@code norm_f}.
 * With a {@link KvCache}, x continues the cached sequence: block i reads and extends slot i.
 */
public final class TransformerDecoder extends Module {
    private final ModuleList<TransformerBlock> blocks;
    private final Layer normF;
    private final int dModel;

    public TransformerDecoder(BlockConfig c, int layers, Generator g) {
        if (layers <= 0) throw new IllegalArgumentException("TransformerDecoder: layers must be positive, got " + layers);
        List<TransformerBlock> list = new ArrayList<>();
        for (int i = 0; i < layers; i++) list.add(new TransformerBlock(c, g));
        this.blocks = module("blocks", new ModuleList<>(list));
        this.normF = module("norm_f", c.norm().create(c.dModel()));
        this.dModel = c.dModel();
    }

    /** x: (batch, seq, dModel) → (batch, seq, dModel), causal, no cache. */
    public Tensor forward(Tensor x) { return forward(x, null, null); }

    /**
     * @param x     (batch, seq, dModel) at positions cache.length(), ... (0, ... without a cache)
     * @param mask  null or additive float32 broadcastable to (batch, heads, seq, cached + seq),
     *              e.g. {@link Masks#keyPadding} of left-padded prompts; added to the causal mask
     * @param cache null, or a cache with one slot per block
     * @return (batch, seq, dModel), normalised by {@code norm_f}
     */
    public Tensor forward(Tensor x, Tensor mask, KvCache cache) {
        if (x.dim() != 3 || x.size(2) != dModel) {
            throw new IllegalArgumentException("TransformerDecoder: expected x of shape (batch, seq, " + dModel + "), got "
                    + Arrays.toString(x.shape()));
        }
        if (cache != null && cache.layers() != blocks.size()) {
            throw new IllegalArgumentException("TransformerDecoder: cache has " + cache.layers() + " layers, the stack has " + blocks.size());
        }
        for (int i = 0; i < blocks.size(); i++) {
            x = blocks.get(i).forward(x, mask, true, cache == null ? null : cache.layer(i));
        }
        return normF.forward(x);
    }

    /** Activation checkpointing for every block; returns this. */
    public TransformerDecoder checkpointing(boolean on) {
        for (TransformerBlock b : blocks) b.checkpointing(on);
        return this;
    }

    public ModuleList<TransformerBlock> blocks() { return blocks; }

    /** A cache sized for this stack. */
    public KvCache newCache(int maxLength) { return new KvCache(blocks.size(), maxLength); }
}
