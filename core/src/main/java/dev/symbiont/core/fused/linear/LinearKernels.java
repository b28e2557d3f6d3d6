package dev.symbiont.core.fused.linear;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

/**
 * The linear family's contract: torch's {@code F.linear}, y = x·Wᵀ + b, as one GEMM whose
 * epilogue adds the bias (and, for {@code linear_gelu}, applies GELU), and its backward with the bias gradient taken in the weight
 * gradient's pass over the output gradient. Inputs carry no autograd history
 * ({@link Linears} records the graph); x is 2-D (rows, in), core having flattened the leading
 * dims. Any strides. {@link ReferenceLinear} is the reference, composed from primitives.
 *
 * <p>Dtypes: x and weight are both float32, or — under autocast
 * ({@link dev.symbiont.core.amp.Autocast}) — both the autocast dtype, bfloat16 or float16, as
 * autocast's matmul hands its operands to the backend, so a device kernel can run a
 * low-precision GEMM with its epilogue. The bias, the output gradients and the GELU derivative
 * are float32; products accumulate in float32 and every result and gradient is float32
 * (autocast's matmul convention). The backward gets x and W as the forward got them.
 */
public interface LinearKernels {

    Family<LinearKernels> FAMILY = new Family<>("linear", LinearKernels.class, new ReferenceLinear());

    /** x: (rows, in), weight: (out, in), bias: (out) or null → (rows, out) = x·Wᵀ + b. */
    Tensor linear(Tensor x, Tensor weight, Tensor bias);

    /**
     * Gradients of {@link #linear} for gradY (rows, out): input gradY·W (rows, in), weight
     * gradYᵀ·x (out, in, contiguous), bias Σ_rows gradY (out). Only the ones asked for are
     * computed; the others are null.
     */
    LinearGrads linearBackward(Tensor gradY, Tensor x, Tensor weight, boolean input, boolean weightGrad, boolean bias);

    /**
     * Gradients of {@link #linear} whose output was cut into column groups of {@code sizes}
     * (rows of W from 0 up, as {@link Linears#linearSplit} cuts it): gradYs[i] (rows, sizes[i]) is
     * group i's output gradient, null for a group that got none. The weight (out, in) and bias
     * (out) gradients come as one tensor each, group i in its own rows (zero rows for a group
     * without a gradient); the input gradient is Σ_i gradYs[i]·W_i added from the last group to
     * the first — the order in which autograd sums the gradients of separate linears over the
     * groups' rows, so the two give the same bits. Only the ones asked for are computed.
     */
    LinearGrads linearSplitBackward(Tensor[] gradYs, int[] sizes, Tensor x, Tensor weight, boolean input, boolean weightGrad,
                                    boolean bias);

    /**
     * GELU (erf form) of {@link #linear}: output = GELU(x·Wᵀ + b), the transformer MLP's first
     * half, and — when {@code keepDerivative} — GELU′ at the pre-activation, (rows, out). The
     * derivative is all the backward needs from the forward: it is computed from the erfc and
     * the exponential the GELU evaluates anyway, so the backward neither keeps the
     * pre-activation nor evaluates them a second time. derivative is null otherwise.
     */
    LinearGelu linearGelu(Tensor x, Tensor weight, Tensor bias, boolean keepDerivative);

    /**
     * Gradients of {@link #linearGelu} for gradY (rows, out) and the forward's derivative: those
     * of {@link #linearBackward} for gradY ⊙ derivative.
     */
    LinearGrads linearGeluBackward(Tensor gradY, Tensor derivative, Tensor x, Tensor weight, boolean input, boolean weightGrad,
                                   boolean bias);

    /** Gradients of a linear's input, weight and bias; null where not asked for. */
    record LinearGrads(Tensor input, Tensor weight, Tensor bias) {}

    /** {@link #linearGelu}'s output and GELU′ at its pre-activation (null when not kept). */
    record LinearGelu(Tensor output, Tensor derivative) {}
}
