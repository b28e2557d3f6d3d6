package dev.symbiont.nn.block;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Linear;

import java.util.List;

/**
 * The half of a {@link ResidualBlock} that transforms each position on its own: a dense MLP
 * today ({@link dev.symbiont.nn.attention.FeedForward}), a mixture of experts next. It keeps
 * no decoding state: position-wise, it gives the same output for a token whether the token
 * comes alone or within its sequence.
 *
 * <p><b>Auxiliary losses.</b> A mixture of experts trains with a loss of its own besides the
 * model's (the load-balancing loss of Switch Transformer, Fedus et al. 2022, eq. 4). The hook
 * for it belongs here, not in the block: the MoE mixer will expose the auxiliary loss of its
 * last training forward (a scalar tensor with autograd history, absent for dense mixers), and
 * the model that owns the stack sums those of its blocks' channel mixers
 * ({@link ResidualBlock#channelMixer()}) into its loss with its own coefficient. Under
 * activation checkpointing the recomputation must not count it twice. Nothing reads such a
 * loss yet, so this class declares no method for it.
 */
public abstract class ChannelMixer extends Layer {
    /** x: (..., dModel) → (..., dModel), each position independently. */
    @Override
    public abstract Tensor forward(Tensor x);

    /** This mixer's name in a block's state dict: {@code mlp} for a dense MLP (GPT-2). */
    public abstract String blockKey();

    /** The projections that write into the residual stream (GPT-2's init scales them by 1/√(2L)). */
    public abstract List<Linear> residualProjections();
}
