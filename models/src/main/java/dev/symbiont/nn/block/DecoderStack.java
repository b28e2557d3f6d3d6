package dev.symbiont.nn.block;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Intermediates;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.ModuleList;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A decoder-only stack (GPT, Llama, Jamba): causal residual blocks, of one kind or several, and a
 * final norm, with no cross-attention:
 * <pre>
 *   h_l = Block_l(h_{l−1}),  l = 1..L,     y = norm_f(h_L)
 * </pre>
 * Keys: {@code blocks.<i>.…} ({@link ResidualBlock}) and {@code norm_f}; a model whose checkpoints
 * name the blocks otherwise (Hugging Face's Mamba: {@code layers.<i>.…}) passes its own key. With a
 * {@link DecodingState}, x continues the positions it holds: block i reads and extends layer i.
 */
public final class DecoderStack extends Module {
    private final ModuleList<ResidualBlock<?, ?>> blocks;
    private final Layer normF;
    private final int dModel;

    /**
     * @param dModel the width every block reads and writes
     * @param blocks at least one
     * @param normF  the final norm over dModel
     */
    public DecoderStack(int dModel, List<? extends ResidualBlock<?, ?>> blocks, Layer normF) { this(dModel, "blocks", blocks, normF); }

    /**
     * @param dModel    the width every block reads and writes
     * @param blocksKey the blocks' name in the state dict ({@code blocks}, {@code layers})
     * @param blocks    at least one
     * @param normF     the final norm over dModel
     */
    public DecoderStack(int dModel, String blocksKey, List<? extends ResidualBlock<?, ?>> blocks, Layer normF) {
        if (blocks.isEmpty()) throw new IllegalArgumentException("DecoderStack: needs at least one block");
        this.blocks = module(blocksKey, new ModuleList<>(blocks));
        this.normF = module("norm_f", normF);
        this.dModel = dModel;
    }

    /** x: (batch, seq, dModel) → (batch, seq, dModel), causal, no state. */
    public Tensor forward(Tensor x) { return forward(x, null, null); }

    /**
     * @param x     (batch, seq, dModel) at positions state.length(), ... (0, ... without a state)
     * @param mask  null or additive float32 broadcastable to (batch, heads, seq, state.length() + seq),
     *              e.g. {@code dev.symbiont.core.ops.Masks.keyPadding} of left-padded prompts; added to the causal mask
     * @param state null, or a state from {@link #newState}
     * @return (batch, seq, dModel), normalised by {@code norm_f}
     */
    public Tensor forward(Tensor x, Tensor mask, DecodingState state) {
        if (x.dim() != 3 || x.size(2) != dModel) {
            throw new IllegalArgumentException("DecoderStack: expected x of shape (batch, seq, " + dModel + "), got "
                    + Arrays.toString(x.shape()));
        }
        if (state != null && state.layers() != blocks.size()) {
            throw new IllegalArgumentException("DecoderStack: the decoding state has " + state.layers() + " layers, the stack has "
                    + blocks.size() + " blocks");
        }
        Intermediates residuals = Intermediates.begin(); // each block's output is read by the next block (or norm_f) only
        for (int i = 0; i < blocks.size(); i++) x = residuals.add(blocks.get(i).forward(x, mask, true, state == null ? null : state.layer(i)));
        Tensor y = normF.forward(x);
        return state == null ? residuals.releaseAfter(y) : y;
    }

    /** An empty decoding state for this stack, each block's of its own kind, for up to {@code maxLength} positions. */
    public DecodingState newState(int maxLength) {
        List<MixerState> layers = new ArrayList<>();
        for (ResidualBlock<?, ?> b : blocks) layers.add(b.newState(maxLength));
        return new DecodingState(layers);
    }

    /** Activation checkpointing for every block; returns this. */
    public DecoderStack checkpointing(boolean on) {
        for (ResidualBlock<?, ?> b : blocks) b.checkpointing(on);
        return this;
    }

    public ModuleList<ResidualBlock<?, ?>> blocks() { return blocks; }
}
