package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.block.SequenceMixer;

/**
 * The sizes of one state-space mixer, of either kind a {@link MambaBlock} holds: Mamba-1's
 * selective scan ({@link MambaConfig}) or Mamba-2's state space duality ({@link Mamba2Config}).
 * The kind is saved with a model as its {@link #architecture} name.
 */
public sealed interface StateSpaceConfig permits MambaConfig, Mamba2Config {
    /** The residual stream's width (hidden_size). */
    int dModel();

    /** The expanded width the state-space layer runs at (intermediate_size). */
    int dInner();

    /** N, the state size (state_size). */
    int dState();

    /** The causal convolution's kernel (conv_kernel). */
    int dConv();

    /** The model family's name in checkpoint metadata: {@code mamba} or {@code mamba2}. */
    String architecture();

    /** A fresh mixer of this kind and size, its weights drawn from {@code g}: (batch, L, dModel) → (batch, L, dModel). */
    SequenceMixer newMixer(Generator g);

    /**
     * As {@link #newMixer(Generator)}, in a model whose norms have ε {@code normEps} (Hugging Face's
     * layer_norm_epsilon), which a mixer's own norm shares (Mamba-2's gated RMSNorm); Mamba-1's mixer has none.
     */
    default SequenceMixer newMixer(Generator g, double normEps) { return newMixer(g); }
}
