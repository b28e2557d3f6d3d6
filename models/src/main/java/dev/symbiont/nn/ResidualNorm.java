package dev.symbiont.nn;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.norm.Normalization;

/**
 * A norm that takes the residual add before it into its own pass: what a pre-norm block's second
 * norm does with {@code h = x + branch} and {@code Norm(h)} ({@link LayerNorm}: add_layer_norm,
 * {@link RMSNorm}: add_rms_norm). The block asks for the capability, not for a class, so every
 * norm kind that has a fused form gets it.
 */
public interface ResidualNorm {

    /**
     * s = x + residual and this norm of s in one fused op, with the values of {@code x.add(residual)}
     * followed by the layer's forward.
     *
     * @param x        (..., normalized dims), the residual stream
     * @param residual the same shape, the sublayer's output
     * @return s and the norm of s, both of x's shape
     */
    Normalization.AddNorm forwardAdd(Tensor x, Tensor residual);
}
