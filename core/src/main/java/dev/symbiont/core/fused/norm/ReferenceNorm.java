package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Tensor;

/** The norm family composed from primitives: what every backend runs unless it has a kernel. Open for test doubles that count calls. */
public class ReferenceNorm implements NormKernels {

    @Override
    public Tensor softmax(Tensor x, int dim) {
        Tensor e = x.sub(x.amax(new int[] {dim}, true)).exp();
        return e.div(e.sum(dim, true));
    }

    @Override
    public Tensor softmaxBackward(Tensor y, Tensor gradY, int dim) {
        return y.mul(gradY.sub(gradY.mul(y).sum(dim, true)));
    }

    @Override
    public Tensor logSoftmax(Tensor x, int dim) {
        Tensor shifted = x.sub(x.amax(new int[] {dim}, true));
        return shifted.sub(shifted.exp().sum(dim, true).log());
    }

    @Override
    public Tensor logSoftmaxBackward(Tensor y, Tensor gradY, int dim) {
        return gradY.sub(y.exp().mul(gradY.sum(dim, true)));
    }

    @Override
    public NormResult layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        Tensor mean = x.mean(1, true);
        Tensor centered = x.sub(mean);
        Tensor rstd = centered.square().mean(1, true).add(eps).rsqrt();
        Tensor y = centered.mul(rstd);
        if (weight != null) y = y.mul(weight);
        if (bias != null) y = y.add(bias);
        return new NormResult(y, mean, rstd);
    }

    @Override
    public NormGrads layerNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        Tensor xhat = x.sub(mean).mul(rstd);
        Tensor gxhat = weight == null ? gradY : gradY.mul(weight);
        Tensor gx = gxhat.sub(gxhat.mean(1, true)).sub(xhat.mul(gxhat.mul(xhat).mean(1, true))).mul(rstd);
        Tensor gw = weight == null ? null : gradY.mul(xhat).sum(0, false);
        Tensor gb = bias == null ? null : gradY.sum(0, false);
        return new NormGrads(gx, gw, gb);
    }

    @Override
    public NormResult rmsNorm(Tensor x, Tensor weight, double eps) {
        Tensor rstd = x.square().mean(1, true).add(eps).rsqrt();
        Tensor y = x.mul(rstd);
        if (weight != null) y = y.mul(weight);
        return new NormResult(y, null, rstd);
    }

    @Override
    public NormGrads rmsNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor rstd) {
        Tensor xhat = x.mul(rstd);
        Tensor gxhat = weight == null ? gradY : gradY.mul(weight);
        Tensor gx = gxhat.sub(xhat.mul(gxhat.mul(xhat).mean(1, true))).mul(rstd);
        Tensor gw = weight == null ? null : gradY.mul(xhat).sum(0, false);
        return new NormGrads(gx, gw, null);
    }

    @Override
    public String toString() { return "ReferenceNorm"; }
}
