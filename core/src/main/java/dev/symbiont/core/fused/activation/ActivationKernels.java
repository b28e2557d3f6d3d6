package dev.symbiont.core.fused.activation;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

/**
 * The activation family's contract: the gradients of the activations whose backward would
 * otherwise be many elementwise passes. The forwards are primitives ({@code UnaryOp.GELU_ERF},
 * {@code GELU_TANH}, {@code SILU}); core's unary rule calls these for their gradients.
 * x and gradY have one shape and any strides; the result is contiguous of that shape.
 */
public interface ActivationKernels {

    Family<ActivationKernels> FAMILY = new Family<>("activation", ActivationKernels.class, new ReferenceActivation());

    /**
     * Gradient of GELU at x times gradY: d/dx x·Φ(x) = Φ(x) + x·φ(x) for the erf form; for the
     * tanh form (u = √(2/π)(x + 0.044715x³)) 0.5(1 + tanh u) + 0.5x(1 − tanh²u)·u'.
     */
    Tensor geluBackward(Tensor x, Tensor gradY, boolean tanhApproximation);

    /** Gradient of SiLU at x times gradY: s·(1 + x(1 − s)) with s = sigmoid(x). */
    Tensor siluBackward(Tensor x, Tensor gradY);
}
