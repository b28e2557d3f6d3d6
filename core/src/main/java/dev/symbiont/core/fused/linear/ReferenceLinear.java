package dev.symbiont.core.fused.linear;

import dev.symbiont.core.Tensor;

/** The linear family composed from primitives: a matmul, a broadcast add and a column sum. */
public final class ReferenceLinear implements LinearKernels {

    @Override
    public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
        Tensor y = x.matmul(weight.t());
        return bias == null ? y : y.add(bias);
    }

    @Override
    public LinearGrads linearBackward(Tensor gradY, Tensor x, Tensor weight, boolean input, boolean weightGrad, boolean bias) {
        return new LinearGrads(
                input ? gradY.matmul(weight) : null,
                weightGrad ? gradY.t().matmul(x) : null,
                bias ? gradY.sum(0, false) : null);
    }

    @Override
    public String toString() { return "ReferenceLinear"; }
}
