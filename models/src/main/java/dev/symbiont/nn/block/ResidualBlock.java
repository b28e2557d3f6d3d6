package dev.symbiont.nn.block;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Checkpoint;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Module;

/**
 * A pre-norm residual block (GPT-2; Xiong et al. 2020) over any sequence mixer and channel mixer:
 * <pre>
 *   h = x + SequenceMixer(Norm₁(x))          attention, Mamba, ...
 *   y = h + ChannelMixer(Norm₂(h))           dense MLP, mixture of experts, ...
 * </pre>
 * Keys: {@code norm1}, the sequence mixer's {@link SequenceMixer#blockKey} ({@code attn}),
 * {@code norm2}, the channel mixer's {@link ChannelMixer#blockKey} ({@code mlp}). The block's
 * decoding state is its sequence mixer's ({@link #newState}); the channel mixer is
 * position-wise and keeps none. With activation checkpointing on, a training forward keeps only
 * the block's input and recomputes the rest in backward ({@link Checkpoint}); a forward with a
 * decoding state is never checkpointed.
 *
 * @param <S> the kind of sequence mixer
 * @param <C> the kind of channel mixer
 */
public class ResidualBlock<S extends SequenceMixer, C extends ChannelMixer> extends Module {
    private final Layer norm1, norm2;
    private final S sequenceMixer;
    private final C channelMixer;
    private boolean checkpointing;

    /**
     * @param norm1         the norm before the sequence mixer, over dModel
     * @param sequenceMixer (batch, seq, dModel) → (batch, seq, dModel)
     * @param norm2         the norm before the channel mixer, over dModel
     * @param channelMixer  (..., dModel) → (..., dModel)
     */
    public ResidualBlock(Layer norm1, S sequenceMixer, Layer norm2, C channelMixer) {
        this.norm1 = module("norm1", norm1);
        this.sequenceMixer = module(sequenceMixer.blockKey(), sequenceMixer);
        this.norm2 = module("norm2", norm2);
        this.channelMixer = module(channelMixer.blockKey(), channelMixer);
    }

    /**
     * @param x      (batch, seq, dModel) at positions state.length(), ... (0, ... without a state)
     * @param mask   null or additive float32 broadcastable to (batch, heads, seq, state.length() + seq)
     * @param causal each position sees only itself and earlier ones
     * @param state  null, or this block's decoding state from {@link #newState}, extended in place
     * @return (batch, seq, dModel)
     */
    public final Tensor forward(Tensor x, Tensor mask, boolean causal, MixerState state) {
        MixerContext context = new MixerContext(mask, causal, state);
        if (checkpointing && state == null) return Checkpoint.run(this, in -> compute(in, context), x);
        return compute(x, context);
    }

    private Tensor compute(Tensor x, MixerContext context) {
        Tensor h = x.add(sequenceMixer.forward(norm1.forward(x), context));
        return h.add(channelMixer.forward(norm2.forward(h)));
    }

    /** A fresh, empty decoding state of this block's sequence mixer, for up to {@code maxLength} positions. */
    public final MixerState newState(int maxLength) { return sequenceMixer.newState(maxLength); }

    /** Turns activation checkpointing of this block on or off; returns this. */
    public final ResidualBlock<S, C> checkpointing(boolean on) {
        checkpointing = on;
        return this;
    }

    public final boolean checkpointing() { return checkpointing; }

    public final S sequenceMixer() { return sequenceMixer; }

    public final C channelMixer() { return channelMixer; }
}
