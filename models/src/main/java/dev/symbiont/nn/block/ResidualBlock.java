package dev.symbiont.nn.block;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Intermediates;
import dev.symbiont.core.fused.norm.Normalization;
import dev.symbiont.nn.Checkpoint;
import dev.symbiont.nn.DropPath;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.ResidualNorm;

import java.util.ArrayList;
import java.util.List;

/**
 * A pre-norm residual block (GPT-2; Xiong et al. 2020) over any sequence mixer and channel mixer:
 * <pre>
 *   h = x + SequenceMixer(Norm₁(x))          attention, Mamba, ...
 *   y = h + ChannelMixer(Norm₂(h))           dense MLP, mixture of experts, ...
 * </pre>
 * Keys: {@code norm1}, the sequence mixer's {@link SequenceMixer#blockKey} ({@code attn}),
 * {@code norm2}, the channel mixer's {@link ChannelMixer#blockKey} ({@code mlp}).
 *
 * <p>A block may have no channel mixer (Mamba, Gu &amp; Dao 2023, §3.4: the mixer's gated
 * expansion takes the MLP's place): then {@code y = h}, and its keys are {@code norm} and the
 * sequence mixer's, as Hugging Face's {@code MambaBlock} names them. The block's
 * decoding state is its sequence mixer's ({@link #newState}); the channel mixer is
 * position-wise and keeps none. With activation checkpointing on, a training forward keeps only
 * the block's input and recomputes the rest in backward ({@link Checkpoint}); a forward with a
 * decoding state is never checkpointed. {@link #dropPath} adds stochastic depth to both branches
 * ({@code x + DropPath(SequenceMixer(Norm₁(x)))}, timm's {@code drop_path1} and {@code drop_path2}).
 *
 * @param <S> the kind of sequence mixer
 * @param <C> the kind of channel mixer
 */
public class ResidualBlock<S extends SequenceMixer, C extends ChannelMixer> extends Module {
    private final Layer norm1, norm2;
    private final S sequenceMixer;
    private final C channelMixer;
    private boolean checkpointing;
    private DropPath dropPath1, dropPath2;                 // null: no stochastic depth

    /**
     * @param norm1         the norm before the sequence mixer, over dModel
     * @param sequenceMixer (batch, seq, dModel) → (batch, seq, dModel)
     * @param norm2         the norm before the channel mixer, over dModel
     * @param channelMixer  (..., dModel) → (..., dModel)
     */
    public ResidualBlock(Layer norm1, S sequenceMixer, Layer norm2, C channelMixer) {
        if (norm2 == null || channelMixer == null) {
            throw new IllegalArgumentException("ResidualBlock: norm2 and channelMixer must both be given (for a block without a channel "
                    + "mixer use the two-argument constructor), got " + norm2 + " and " + channelMixer);
        }
        this.norm1 = module("norm1", norm1);
        this.sequenceMixer = module(sequenceMixer.blockKey(), sequenceMixer);
        this.norm2 = module("norm2", norm2);
        this.channelMixer = module(channelMixer.blockKey(), channelMixer);
    }

    /**
     * A block with a sequence mixer only: {@code y = x + SequenceMixer(Norm(x))}; keys {@code norm}
     * and the mixer's block key.
     *
     * @param norm          the norm before the sequence mixer, over dModel
     * @param sequenceMixer (batch, seq, dModel) → (batch, seq, dModel)
     */
    public ResidualBlock(Layer norm, S sequenceMixer) {
        this.norm1 = module("norm", norm);
        this.sequenceMixer = module(sequenceMixer.blockKey(), sequenceMixer);
        this.norm2 = null;
        this.channelMixer = null;
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
        // what the block makes for itself goes back to the pool once nothing reads it; a decoding
        // state may keep what its mixer was given, so a decoding step releases nothing
        Intermediates temps = Intermediates.begin();
        Tensor mixed = temps.add(dropped(dropPath1, sequenceMixer.forward(temps.add(norm1.forward(x)), context)));
        Tensor y;
        if (channelMixer == null) {
            y = x.add(mixed);
        } else if (norm2 instanceof ResidualNorm fusable) {
            // h = x + mixed and Norm₂(h) in one fused pass, forward and backward, for any norm kind
            // that has one (LayerNorm, RMSNorm); the same values.
            Normalization.AddNorm h = fusable.forwardAdd(x, mixed);
            y = temps.add(h.sum()).add(temps.add(dropped(dropPath2, channelMixer.forward(temps.add(h.output())))));
        } else {
            Tensor h = temps.add(x.add(mixed));
            y = h.add(temps.add(dropped(dropPath2, channelMixer.forward(temps.add(norm2.forward(h))))));
        }
        return context.state() == null ? temps.releaseAfter(y) : y;
    }

    private static Tensor dropped(DropPath dropPath, Tensor branch) { return dropPath == null ? branch : dropPath.forward(branch); }

    /**
     * Drops each residual branch per sample with probability {@code p} in training (timm's
     * drop_path1 / drop_path2: no state-dict keys), each with its own generator drawn from
     * {@code g}; p = 0 leaves the block as it was. Returns this.
     */
    public final ResidualBlock<S, C> dropPath(double p, Generator g) {
        if (p == 0) return this;
        dropPath1 = module("drop_path1", new DropPath(p, new Generator(g.nextLong())));
        if (channelMixer != null) dropPath2 = module("drop_path2", new DropPath(p, new Generator(g.nextLong())));
        if (!isTraining()) eval();                         // the new layers follow the block's mode
        return this;
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

    /** The channel mixer, or null for a block that has none. */
    public final C channelMixer() { return channelMixer; }

    /** The projections of both mixers that write into the residual stream (GPT-2's init scales them by 1/√(2L)). */
    public final List<Linear> residualProjections() {
        List<Linear> out = new ArrayList<>(sequenceMixer.residualProjections());
        if (channelMixer != null) out.addAll(channelMixer.residualProjections());
        return out;
    }
}
