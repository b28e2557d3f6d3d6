package dev.symbiont.nn.block;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Linear;

import java.util.List;

/**
 * The half of a {@link ResidualBlock} that transforms each position on its own: a dense MLP
 * ({@link dev.symbiont.nn.attention.FeedForward}) or a mixture of experts
 * ({@code dev.symbiont.nn.moe.MoeFeedForward}). It keeps
 * no decoding state: position-wise, it gives the same output for a token whether the token
 * comes alone or within its sequence.
 *
 * <p><b>Auxiliary losses.</b> A mixture of experts trains with a loss of its own besides the
 * model's (the load-balancing loss of Switch Transformer, Fedus et al. 2022, eq. 4). The hook
 * for it belongs here, not in the block: the MoE mixer exposes the auxiliary losses of its
 * last forward ({@code MoeFeedForward.lastAux()}: scalars with autograd history), and the model
 * that owns the stack sums those of its blocks' channel mixers into its loss with its own
 * coefficients ({@code RouterLosses.total}, {@code Gpt.auxiliaryLoss()}), which a trainer adds
 * to the task loss ({@code Trainer.Builder.auxiliaryLoss}). Under activation
 * checkpointing they are the segment's side outputs ({@code Checkpoint.sideOutputs}), whose
 * gradients reach the router through backward's rerun. Dense mixers have none, so this class
 * declares no method for them.
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
