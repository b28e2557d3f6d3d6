package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Tensor;

/**
 * The norm family composed from primitives: what every backend runs unless it has a kernel.
 *
 * <p>Open: a backend extends it to override single ops ({@link dev.symbiont.core.fused.Family}).
 * Composed ops call their parts virtually: {@link #addLayerNorm} and {@link #addRmsNorm} call
 * {@link #layerNorm} and {@link #rmsNorm}, their backwards those norms' backwards.
 */
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
    public AddNormResult addLayerNorm(Tensor x, Tensor residual, Tensor weight, Tensor bias, double eps) {
        Tensor sum = x.add(residual);
        NormResult r = layerNorm(sum, weight, bias, eps);
        return new AddNormResult(sum, r.output(), r.mean(), r.rstd());
    }

    @Override
    public NormGrads addLayerNormBackward(Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor bias,
                                          Tensor mean, Tensor rstd) {
        return plusSumGradient(layerNormBackward(gradY, sum, weight, bias, mean, rstd), gradSum);
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
    public AddNormResult addRmsNorm(Tensor x, Tensor residual, Tensor weight, double eps) {
        Tensor sum = x.add(residual);
        NormResult r = rmsNorm(sum, weight, eps);
        return new AddNormResult(sum, r.output(), null, r.rstd());
    }

    @Override
    public NormGrads addRmsNormBackward(Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor rstd) {
        return plusSumGradient(rmsNormBackward(gradY, sum, weight, rstd), gradSum);
    }

    /** A norm's gradients with gradSum (the gradient s got from elsewhere, or null) added to the input's. */
    private static NormGrads plusSumGradient(NormGrads g, Tensor gradSum) {
        return gradSum == null ? g : new NormGrads(gradSum.add(g.input()), g.weight(), g.bias());
    }

    // ---- channel norms of (N, C, L) -------------------------------------------------------------

    /** Batch norm's statistics are over N and L. */
    private static final int[] BATCH_DIMS = {0, 2};

    @Override
    public BatchNormResult batchNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        int c = x.size(1);
        Tensor mean = x.mean(BATCH_DIMS, true);
        Tensor centered = x.sub(mean);
        Tensor var = centered.square().mean(BATCH_DIMS, true);
        Tensor rstd = var.add(eps).rsqrt();
        Tensor y = affine(centered.mul(rstd), weight, bias);
        return new BatchNormResult(y, mean.reshape(c), var.reshape(c), rstd.reshape(c));
    }

    @Override
    public Tensor batchNormEval(Tensor x, Tensor mean, Tensor rstd, Tensor weight, Tensor bias) {
        return affine(x.sub(perChannel(mean)).mul(perChannel(rstd)), weight, bias);
    }

    @Override
    public NormGrads batchNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd,
                                       boolean training) {
        Tensor r = perChannel(rstd);
        Tensor xhat = x.sub(perChannel(mean)).mul(r);
        Tensor gxhat = weight == null ? gradY : gradY.mul(perChannel(weight));
        Tensor gx = training
                ? gxhat.sub(gxhat.mean(BATCH_DIMS, true)).sub(xhat.mul(gxhat.mul(xhat).mean(BATCH_DIMS, true))).mul(r)
                : gxhat.mul(r);
        return new NormGrads(gx, weight == null ? null : gradY.mul(xhat).sum(BATCH_DIMS, false),
                bias == null ? null : gradY.sum(BATCH_DIMS, false));
    }

    @Override
    public NormResult groupNorm(Tensor x, int groups, Tensor weight, Tensor bias, double eps) {
        int n = x.size(0);
        Tensor xg = grouped(x, groups);
        Tensor mean = xg.mean(2, true);
        Tensor centered = xg.sub(mean);
        Tensor rstd = centered.square().mean(2, true).add(eps).rsqrt();
        Tensor y = affine(centered.mul(rstd).reshape(x.shape()), weight, bias);
        return new NormResult(y, mean.reshape(n, groups), rstd.reshape(n, groups));
    }

    @Override
    public NormGrads groupNormBackward(Tensor gradY, Tensor x, int groups, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        int n = x.size(0);
        Tensor r = rstd.reshape(n, groups, 1);
        Tensor xhat = grouped(x, groups).sub(mean.reshape(n, groups, 1)).mul(r);
        Tensor gxhat = grouped(weight == null ? gradY : gradY.mul(perChannel(weight)), groups);
        Tensor gx = gxhat.sub(gxhat.mean(2, true)).sub(xhat.mul(gxhat.mul(xhat).mean(2, true))).mul(r);
        Tensor gw = weight == null ? null : gradY.mul(xhat.reshape(x.shape())).sum(BATCH_DIMS, false);
        Tensor gb = bias == null ? null : gradY.sum(BATCH_DIMS, false);
        return new NormGrads(gx.reshape(x.shape()), gw, gb);
    }

    @Override
    public NormResult layerNorm2d(Tensor x, Tensor weight, Tensor bias, double eps) {
        int n = x.size(0), l = x.size(2);
        Tensor mean = x.mean(1, true);
        Tensor centered = x.sub(mean);
        Tensor rstd = centered.square().mean(1, true).add(eps).rsqrt();
        Tensor y = affine(centered.mul(rstd), weight, bias);
        return new NormResult(y, mean.reshape(n, l), rstd.reshape(n, l));
    }

    @Override
    public NormGrads layerNorm2dBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        int n = x.size(0), l = x.size(2);
        Tensor r = rstd.reshape(n, 1, l);
        Tensor xhat = x.sub(mean.reshape(n, 1, l)).mul(r);
        Tensor gxhat = weight == null ? gradY : gradY.mul(perChannel(weight));
        Tensor gx = gxhat.sub(gxhat.mean(1, true)).sub(xhat.mul(gxhat.mul(xhat).mean(1, true))).mul(r);
        Tensor gw = weight == null ? null : gradY.mul(xhat).sum(BATCH_DIMS, false);
        Tensor gb = bias == null ? null : gradY.sum(BATCH_DIMS, false);
        return new NormGrads(gx, gw, gb);
    }

    /** x (N, C, L) as (N, groups, C / groups · L). */
    private static Tensor grouped(Tensor x, int groups) {
        return x.reshape(x.size(0), groups, x.size(1) / groups * x.size(2));
    }

    /** A (C) vector as (1, C, 1), to broadcast over (N, C, L). */
    private static Tensor perChannel(Tensor v) {
        return v.reshape(1, v.numel(), 1);
    }

    /** y·weight[c] + bias[c], either optional. */
    private static Tensor affine(Tensor y, Tensor weight, Tensor bias) {
        if (weight != null) y = y.mul(perChannel(weight));
        if (bias != null) y = y.add(perChannel(bias));
        return y;
    }

    @Override
    public String toString() { return "ReferenceNorm"; }
}
