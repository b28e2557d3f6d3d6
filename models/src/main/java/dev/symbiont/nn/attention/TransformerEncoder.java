package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Masks;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.ModuleList;

import java.util.Arrays;

/**
 * A bidirectional encoder stack (BERT/ViT, pre-norm): every position attends to every
 * non-padding position. Keys: {@code blocks.<i>.…} ({@link TransformerBlock}) and {@code norm_f}.
 * Outputs at padding positions are finite but meaningless; pool or score only real tokens.
 */
public final class TransformerEncoder extends Module {
    private final ModuleList<TransformerBlock> blocks;
    private final Layer normF;
    private final int dModel;

    public TransformerEncoder(BlockConfig c, int layers, Generator g) {
        this.blocks = module("blocks", new ModuleList<>(TransformerBlock.stack(c, layers, g)));
        this.normF = module("norm_f", c.newNorm());
        this.dModel = c.dModel();
    }

    /**
     * @param x       (batch, seq, dModel)
     * @param padding null (no padding) or (batch, seq) flags: 1 for a token, 0 for padding
     * @return (batch, seq, dModel), normalised by {@code norm_f}
     */
    public Tensor forward(Tensor x, Tensor padding) {
        if (x.dim() != 3 || x.size(2) != dModel) {
            throw new IllegalArgumentException("TransformerEncoder: expected x of shape (batch, seq, " + dModel + "), got "
                    + Arrays.toString(x.shape()));
        }
        if (padding != null && (padding.dim() != 2 || padding.size(0) != x.size(0) || padding.size(1) != x.size(1))) {
            throw new IllegalArgumentException("TransformerEncoder: padding must be (batch, seq) = (" + x.size(0) + ", " + x.size(1)
                    + "), got " + Arrays.toString(padding.shape()));
        }
        Tensor mask = padding == null ? null : Masks.keyPadding(padding);
        for (TransformerBlock block : blocks) x = block.forward(x, mask, false, null);
        return normF.forward(x);
    }

    /** Activation checkpointing for every block; returns this. */
    public TransformerEncoder checkpointing(boolean on) {
        for (TransformerBlock b : blocks) b.checkpointing(on);
        return this;
    }

    public ModuleList<TransformerBlock> blocks() { return blocks; }
}
