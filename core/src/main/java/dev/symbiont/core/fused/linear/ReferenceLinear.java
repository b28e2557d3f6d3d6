package dev.symbiont.core.fused.linear;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.core.ops.Elementwise;
import dev.symbiont.core.ops.Linalg;

import java.util.ArrayList;
import java.util.List;

/**
 * The linear family composed from primitives: a matmul ({@link Linalg#mixedMatmul}, so that
 * autocast's low-precision x and W reach the backend's matmul as they are), a broadcast add and a column sum;
 * linear_gelu is that linear, then the GELU primitive and the activation family's reference
 * gradient (GELU′ times ones), then the elementwise product with the output gradient.
 *
 * <p>Open: a backend extends it to override single ops ({@link dev.symbiont.core.fused.Family}).
 * Composed ops call their parts virtually: linear_gelu calls {@link #linear}, its backward and
 * {@link #linearSplitBackward} call {@link #linearBackward}.
 */
public class ReferenceLinear implements LinearKernels {

    @Override
    public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        Tensor y = Linalg.mixedMatmul(x, weight.t());
        return bias == null ? y : y.add(bias);
    }

    @Override
    public LinearGrads linearBackward(Tensor gradY, Tensor x, Tensor weight, boolean input, boolean weightGrad, boolean bias) {
        return new LinearGrads(
                input ? Linalg.mixedMatmul(gradY, weight) : null,
                weightGrad ? Linalg.mixedMatmul(gradY.t(), x) : null,
                bias ? gradY.sum(0, false) : null);
    }

    /** Each group's {@link #linearBackward} on its rows of W; the weight and bias gradients concatenated. */
    @Override
    public LinearGrads linearSplitBackward(Tensor[] gradYs, int[] sizes, Tensor x, Tensor weight, boolean input, boolean weightGrad,
                                           boolean bias) {
        List<Tensor> weights = new ArrayList<>(), biases = new ArrayList<>();
        Tensor gx = null;
        int from = weight.size(0);
        for (int i = sizes.length - 1; i >= 0; i--) {
            from -= sizes[i];
            Tensor w = weight.narrow(0, from, sizes[i]);
            if (gradYs[i] == null) { // float32 zeros, as the gradients beside them (W may be low precision)
                weights.add(0, Creation.full(w.backend(), 0, DType.FLOAT32, w.shape()));
                biases.add(0, Creation.full(w.backend(), 0, DType.FLOAT32, sizes[i]));
                continue;
            }
            LinearGrads g = linearBackward(gradYs[i], x, w, input, weightGrad, bias);
            weights.add(0, g.weight());
            biases.add(0, g.bias());
            if (input) gx = gx == null ? g.input() : gx.add(g.input());
        }
        return new LinearGrads(gx, weightGrad ? Tensor.cat(weights, 0) : null, bias ? Tensor.cat(biases, 0) : null);
    }

    @Override
    public LinearGelu linearGelu(Tensor x, Tensor weight, Tensor bias, boolean keepDerivative) {
        return gelu(linear(x, weight, bias), keepDerivative);
    }

    /** GELU of a pre-activation z from the primitives, and GELU′(z) when asked (the reference's second half). */
    public static LinearGelu gelu(Tensor z, boolean keepDerivative) {
        Tensor derivative = keepDerivative ? ActivationKernels.FAMILY.reference().geluBackward(z, Tensor.onesLike(z), false) : null;
        return new LinearGelu(Elementwise.unary(UnaryOp.GELU_ERF, z), derivative);
    }

    @Override
    public LinearGrads linearGeluBackward(Tensor gradY, Tensor derivative, Tensor x, Tensor weight, boolean input, boolean weightGrad,
                                          boolean bias) {
        return linearBackward(gradY.mul(derivative), x, weight, input, weightGrad, bias);
    }

    @Override
    public String toString() { return "ReferenceLinear"; }
}
