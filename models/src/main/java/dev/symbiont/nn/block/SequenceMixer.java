package dev.symbiont.nn.block;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;

import java.util.List;

/**
 * The half of a {@link ResidualBlock} that moves information between positions: self-attention
 * today (Vaswani et al. 2017), a selective state-space scan next (Mamba, Gu and Dao 2023).
 * Each kind keeps its own incremental-decoding state ({@link MixerState}), so a stack may mix
 * kinds (Jamba, Lieber et al. 2024: attention and Mamba layers in one model).
 */
public abstract class SequenceMixer extends Module {
    /**
     * Mixes x over its positions and, with a state, over the positions the state holds.
     *
     * @param x       (batch, seq, dModel) at positions state.length(), ... (0, ... without a state)
     * @param context mask, causality and this block's decoding state (extended in place)
     * @return (batch, seq, dModel)
     */
    public abstract Tensor forward(Tensor x, MixerContext context);

    /** A fresh, empty decoding state for up to {@code maxLength} positions, of this mixer's own kind. */
    public abstract MixerState newState(int maxLength);

    /** This mixer's name in a block's state dict: {@code attn} for attention (GPT-2), {@code mixer} for Mamba (as Hugging Face names it). */
    public abstract String blockKey();

    /** The projections that write into the residual stream (GPT-2's init scales them by 1/√(2L)). */
    public abstract List<Linear> residualProjections();
}
