package dev.symbiont.core.fused.activation;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.ops.Elementwise;

/**
 * The activation gradients composed from elementwise primitives.
 *
 * <p>Open: a backend extends it to override single ops ({@link dev.symbiont.core.fused.Family}).
 */
public class ReferenceActivation implements ActivationKernels {

    @Override
    public Tensor geluBackward(Tensor x, Tensor gradY, boolean tanhApproximation) {
        if (tanhApproximation) {
            double sqrtTwoOverPi = Math.sqrt(2 / Math.PI), cubic = 0.044715;
            Tensor x2 = x.square();
            Tensor t = x.add(x2.mul(x).mul(cubic)).mul(sqrtTwoOverPi).tanh();
            Tensor du = x2.mul(3 * cubic).add(1.0).mul(sqrtTwoOverPi);
            return gradY.mul(t.add(1.0).mul(0.5).add(x.mul(0.5).mul(t.square().neg().add(1.0)).mul(du)));
        }
        Tensor cdf = Elementwise.unary(UnaryOp.ERF, x.mul(Math.sqrt(0.5))).add(1.0).mul(0.5);
        Tensor pdf = x.square().mul(-0.5).exp().mul(1 / Math.sqrt(2 * Math.PI));
        return gradY.mul(cdf.add(x.mul(pdf)));
    }

    @Override
    public Tensor siluBackward(Tensor x, Tensor gradY) {
        Tensor s = x.sigmoid();
        return gradY.mul(s.mul(x.mul(s.neg().add(1.0)).add(1.0)));
    }

    @Override
    public String toString() { return "ReferenceActivation"; }
}
