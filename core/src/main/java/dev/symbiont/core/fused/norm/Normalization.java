package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.ops.Checks;
import dev.symbiont.core.profile.OpCategory;

import java.util.Arrays;

/**
 * softmax, log_softmax, layer_norm and rms_norm, and the norms fused with the residual add before
 * them (add_layer_norm, add_rms_norm): checks, then the norm family's kernels
 * through {@link FusedOp}. FLOP estimates count the element passes of the reference
 * composition (max, subtract, exp, sum, divide for softmax), so a fused kernel and the
 * reference it replaces report the same work.
 */
public final class Normalization {
    private Normalization() {}

    private static final FusedOp<NormKernels> SOFTMAX = FusedOp.of(NormKernels.FAMILY, "softmax", OpCategory.NORMALIZATION);
    private static final FusedOp<NormKernels> LOG_SOFTMAX = FusedOp.of(NormKernels.FAMILY, "log_softmax", OpCategory.NORMALIZATION);
    private static final FusedOp<NormKernels> LAYER_NORM = FusedOp.of(NormKernels.FAMILY, "layer_norm", OpCategory.NORMALIZATION);
    private static final FusedOp<NormKernels> ADD_LAYER_NORM = FusedOp.of(NormKernels.FAMILY, "add_layer_norm", OpCategory.NORMALIZATION);
    private static final FusedOp<NormKernels> RMS_NORM = FusedOp.of(NormKernels.FAMILY, "rms_norm", OpCategory.NORMALIZATION);
    private static final FusedOp<NormKernels> ADD_RMS_NORM = FusedOp.of(NormKernels.FAMILY, "add_rms_norm", OpCategory.NORMALIZATION);

    /** softmax along {@code dim}; the result has x's shape. */
    public static Tensor softmax(Tensor x, int dim) {
        Checks.float32("softmax", x);
        int d = x.layout().dim("softmax", dim);
        return SOFTMAX.run(x.backend(), 5L * x.numel(), 2 * FusedOp.bytes(x),
                k -> FusedOp.saving(k.softmax(x.detach(), d)),
                (k, y, g) -> new Tensor[] {k.softmaxBackward(y, g, d)}, x);
    }

    /** log_softmax along {@code dim}; the result has x's shape. */
    public static Tensor logSoftmax(Tensor x, int dim) {
        Checks.float32("log_softmax", x);
        int d = x.layout().dim("log_softmax", dim);
        return LOG_SOFTMAX.run(x.backend(), 5L * x.numel(), 2 * FusedOp.bytes(x),
                k -> FusedOp.saving(k.logSoftmax(x.detach(), d)),
                (k, y, g) -> new Tensor[] {k.logSoftmaxBackward(y, g, d)}, x);
    }

    /** Normalises over the trailing {@code normalizedShape} dims; weight and bias have that shape or are null. */
    public static Tensor layerNorm(Tensor x, int[] normalizedShape, Tensor weight, Tensor bias, double eps) {
        Checks.float32("layer_norm", x, weight, bias);
        Checks.sameBackend("layer_norm", x, weight, bias);
        int cols = trailing("layer_norm", x, normalizedShape, weight, bias);
        int rows = x.numel() / Math.max(cols, 1);
        // mean, subtract, square, mean, scale: 5 passes; weight and bias one more each.
        long passes = 5 + (weight == null ? 0 : 1) + (bias == null ? 0 : 1);
        Tensor x2 = x.detach().reshape(rows, cols);
        Tensor w = flat(weight, cols), b = flat(bias, cols);
        return LAYER_NORM.run(x.backend(), passes * x.numel(), 2 * FusedOp.bytes(x) + FusedOp.bytes(weight, bias),
                k -> {
                    NormKernels.NormResult r = k.layerNorm(x2, w, b, eps);
                    // Save the statistics, not the output: the graph then does not keep it alive.
                    return new FusedOp.Result<>(r.output().reshape(x.shape()), new Tensor[] {r.mean(), r.rstd()});
                },
                (k, stats, g) -> unflatten(k.layerNormBackward(g.reshape(rows, cols), x2, w, b, stats[0], stats[1]),
                        x, weight, bias),
                x, weight, bias);
    }

    /** The new residual stream s = x + residual and its norm y (layer or RMS norm of s), both of x's shape. */
    public record AddNorm(Tensor sum, Tensor output) {}

    /**
     * s = x + residual and layer_norm(s) over the trailing {@code normalizedShape} dims, in one
     * pass forward and one backward: a pre-norm block's residual add and the next norm. x and
     * residual have the same shape (no broadcasting); weight and bias have normalizedShape or are
     * null. Gradients reaching s from other consumers and through the norm are added in the
     * backward's pass.
     */
    public static AddNorm addLayerNorm(Tensor x, Tensor residual, int[] normalizedShape, Tensor weight, Tensor bias, double eps) {
        // layer norm's passes and the add
        long passes = 6 + (weight == null ? 0 : 1) + (bias == null ? 0 : 1);
        return addNorm(ADD_LAYER_NORM, x, residual, normalizedShape, weight, bias, passes,
                (k, x2, r2, w, b) -> k.addLayerNorm(x2, r2, w, b, eps),
                (k, gY, gSum, sum, w, b, mean, rstd) -> k.addLayerNormBackward(gY, gSum, sum, w, b, mean, rstd));
    }

    /**
     * s = x + residual and rms_norm(s) over the trailing {@code normalizedShape} dims, in one pass
     * forward and one backward: a Llama-style pre-norm block's residual add and the next norm, as
     * {@link #addLayerNorm}. x and residual have the same shape; weight has normalizedShape or is null.
     */
    public static AddNorm addRmsNorm(Tensor x, Tensor residual, int[] normalizedShape, Tensor weight, double eps) {
        // RMS norm's passes and the add
        long passes = 4 + (weight == null ? 0 : 1);
        return addNorm(ADD_RMS_NORM, x, residual, normalizedShape, weight, null, passes,
                (k, x2, r2, w, b) -> k.addRmsNorm(x2, r2, w, eps),
                (k, gY, gSum, sum, w, b, mean, rstd) -> k.addRmsNormBackward(gY, gSum, sum, w, rstd));
    }

    /** A fused add + norm's forward on (rows, cols) views of x and the residual, (cols) parameters. */
    @FunctionalInterface
    private interface AddNormForward {
        NormKernels.AddNormResult apply(NormKernels k, Tensor x, Tensor residual, Tensor weight, Tensor bias);
    }

    /** Its backward from gradY and gradSum (or null), the saved sum and the forward's statistics. */
    @FunctionalInterface
    private interface AddNormBackward {
        NormKernels.NormGrads apply(NormKernels k, Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor bias,
                                    Tensor mean, Tensor rstd);
    }

    /** The checks, the flattening and the graph node shared by the fused add + norm ops. */
    private static AddNorm addNorm(FusedOp<NormKernels> fused, Tensor x, Tensor residual, int[] normalizedShape, Tensor weight,
                                   Tensor bias, long passes, AddNormForward forward, AddNormBackward backward) {
        String op = fused.name();
        Checks.float32(op, x, residual, weight, bias);
        Checks.sameBackend(op, x, residual, weight, bias);
        if (!Arrays.equals(x.shape(), residual.shape())) {
            throw new IllegalArgumentException(op + ": input shape " + Arrays.toString(x.shape())
                    + " differs from residual shape " + Arrays.toString(residual.shape()));
        }
        int cols = trailing(op, x, normalizedShape, weight, bias);
        int rows = x.numel() / Math.max(cols, 1);
        Tensor x2 = x.detach().reshape(rows, cols), r2 = residual.detach().reshape(rows, cols);
        Tensor w = flat(weight, cols), b = flat(bias, cols);
        FusedOp.Pair out = fused.runPair(x.backend(), passes * x.numel(),
                4 * FusedOp.bytes(x) + FusedOp.bytes(weight, bias),
                k -> {
                    NormKernels.AddNormResult r = forward.apply(k, x2, r2, w, b);
                    // The sum is an output the graph does not own; backward keeps it and the statistics.
                    return new FusedOp.PairResult<>(r.sum().reshape(x.shape()), r.output().reshape(x.shape()),
                            new Tensor[] {r.sum(), r.mean(), r.rstd()});
                },
                (k, saved, gSum, gY) -> {
                    Tensor gs2 = gSum == null ? null : gSum.reshape(rows, cols);
                    if (gY == null) return new Tensor[] {gSum, gSum, null, null};
                    NormKernels.NormGrads g = backward.apply(k, gY.reshape(rows, cols), gs2, saved[0], w, b, saved[1], saved[2]);
                    Tensor[] grads = unflatten(g, x, weight, bias);
                    return new Tensor[] {grads[0], grads[0], grads[1], grads[2]};
                },
                x, residual, weight, bias);
        return new AddNorm(out.first(), out.second());
    }

    /** RMS norm over the trailing {@code normalizedShape} dims; weight has that shape or is null. */
    public static Tensor rmsNorm(Tensor x, int[] normalizedShape, Tensor weight, double eps) {
        Checks.float32("rms_norm", x, weight);
        Checks.sameBackend("rms_norm", x, weight);
        int cols = trailing("rms_norm", x, normalizedShape, weight, null);
        int rows = x.numel() / Math.max(cols, 1);
        // square, mean, scale: 3 passes; the weight one more.
        long passes = 3 + (weight == null ? 0 : 1);
        Tensor x2 = x.detach().reshape(rows, cols);
        Tensor w = flat(weight, cols);
        return RMS_NORM.run(x.backend(), passes * x.numel(), 2 * FusedOp.bytes(x) + FusedOp.bytes(weight),
                k -> {
                    NormKernels.NormResult r = k.rmsNorm(x2, w, eps);
                    return new FusedOp.Result<>(r.output().reshape(x.shape()), r.rstd());
                },
                (k, rstd, g) -> unflatten(k.rmsNormBackward(g.reshape(rows, cols), x2, w, rstd), x, weight, null),
                x, weight);
    }

    private static Tensor flat(Tensor parameter, int cols) {
        return parameter == null ? null : parameter.detach().reshape(cols);
    }

    /** The (rows, cols) gradients back in the shapes of x, weight and bias. */
    private static Tensor[] unflatten(NormKernels.NormGrads gr, Tensor x, Tensor weight, Tensor bias) {
        return new Tensor[] {gr.input().reshape(x.shape()),
                gr.weight() == null ? null : gr.weight().reshape(weight.shape()),
                gr.bias() == null || bias == null ? null : gr.bias().reshape(bias.shape())};
    }

    /** Checks that x ends with normalizedShape and the parameters have it; returns its element count. */
    private static int trailing(String op, Tensor x, int[] normalizedShape, Tensor weight, Tensor bias) {
        int[] shape = x.shape();
        int lead = shape.length - normalizedShape.length;
        boolean ok = lead >= 0 && normalizedShape.length > 0;
        for (int i = 0; ok && i < normalizedShape.length; i++) ok = shape[lead + i] == normalizedShape[i];
        if (!ok) {
            throw new IllegalArgumentException(op + ": normalized shape " + Arrays.toString(normalizedShape)
                    + " does not match the trailing dims of input shape " + Arrays.toString(shape));
        }
        for (Tensor p : new Tensor[] {weight, bias}) {
            if (p != null && !Arrays.equals(p.shape(), normalizedShape)) {
                throw new IllegalArgumentException(op + ": parameter shape " + Arrays.toString(p.shape())
                        + " differs from normalized shape " + Arrays.toString(normalizedShape));
            }
        }
        int n = 1;
        for (int d : normalizedShape) n *= d;
        return n;
    }
}
