package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.ops.Checks;
import dev.symbiont.core.profile.OpCategory;

import java.util.Arrays;

/**
 * Norms over the channels of channels-first tensors x (N, C, *), as CNNs use them:
 * {@code batch_norm} and {@code group_norm} with the semantics of PyTorch's
 * {@code F.batch_norm} and {@code F.group_norm}, and layer norm over C at every position
 * (ConvNeXt's LayerNorm2d). The spatial dims are flattened into one, L, so the kernels see
 * (N, C, L); (N, C) inputs have L = 1.
 */
public final class ChannelNorms {
    private ChannelNorms() {}

    private static final FusedOp<NormKernels> BATCH_NORM = FusedOp.of(NormKernels.FAMILY, "batch_norm", OpCategory.NORMALIZATION);
    private static final FusedOp<NormKernels> GROUP_NORM = FusedOp.of(NormKernels.FAMILY, "group_norm", OpCategory.NORMALIZATION);
    private static final FusedOp<NormKernels> LAYER_NORM_2D = FusedOp.of(NormKernels.FAMILY, "layer_norm2d", OpCategory.NORMALIZATION);

    /**
     * Batch normalisation of x (N, C, *) → same shape; every tensor but x may be null, and
     * runningMean, runningVar, weight and bias are (C).
     *
     * <p>With {@code training}, each channel is normalised with the mean and biased variance of
     * its N·L values, and running statistics (when given) are updated in place:
     * running_mean ← (1 − momentum)·running_mean + momentum·mean and likewise running_var with
     * the unbiased variance. For a cumulative average pass momentum = 1 / num_batches_tracked
     * (what {@code nn.BatchNorm2d} does when its momentum is null). Without {@code training}
     * the running statistics are used and must be given.
     */
    public static Tensor batchNorm(Tensor x, Tensor runningMean, Tensor runningVar, Tensor weight, Tensor bias,
                                   boolean training, double momentum, double eps) {
        String op = "batch_norm";
        Checks.float32(op, x, runningMean, runningVar, weight, bias);
        Checks.sameBackend(op, x, runningMean, runningVar, weight, bias);
        int n = batch(op, x), c = x.size(1), l = spatial(x);
        checkChannels(op, x, "running_mean", runningMean);
        checkChannels(op, x, "running_var", runningVar);
        checkChannels(op, x, "weight", weight);
        checkChannels(op, x, "bias", bias);
        if ((runningMean == null) != (runningVar == null)) {
            throw new IllegalArgumentException(op + ": running_mean and running_var must both be given or both be null");
        }
        Tensor x3 = x.detach().reshape(n, c, l), w = flat(weight), b = flat(bias);
        // mean, subtract, square, mean, scale: 5 passes; weight and bias one more each.
        long flops = (5L + (weight == null ? 0 : 1) + (bias == null ? 0 : 1)) * x.numel();
        long bytes = 2 * FusedOp.bytes(x) + FusedOp.bytes(weight, bias, runningMean, runningVar);
        if (training) {
            long m = (long) n * l;
            if (m <= 1) {
                throw new IllegalArgumentException(op + ": expected more than 1 value per channel when training, got input size "
                        + Arrays.toString(x.shape()));
            }
            return BATCH_NORM.run(x.backend(), flops, bytes,
                    k -> {
                        NormKernels.BatchNormResult r = k.batchNorm(x3, w, b, eps);
                        if (runningMean != null) {
                            updateInPlace(runningMean, r.mean(), momentum);
                            updateInPlace(runningVar, r.var().mul(m / (m - 1.0)), momentum);
                        }
                        return new FusedOp.Result<>(r.output().reshape(x.shape()), new Tensor[] {r.mean(), r.rstd()});
                    },
                    (k, stats, g) -> unflatten(k.batchNormBackward(g.reshape(n, c, l), x3, w, b, stats[0], stats[1], true), x),
                    x, weight, bias);
        }
        if (runningMean == null) {
            throw new IllegalArgumentException(op + ": running_mean and running_var are needed when not training");
        }
        return BATCH_NORM.run(x.backend(), flops, bytes,
                k -> {
                    // A copy of the mean: a later training step updates the running buffer in place.
                    Tensor mean = runningMean.detach().clone(), rstd = runningVar.detach().add(eps).rsqrt();
                    return new FusedOp.Result<>(k.batchNormEval(x3, mean, rstd, w, b).reshape(x.shape()), new Tensor[] {mean, rstd});
                },
                (k, stats, g) -> unflatten(k.batchNormBackward(g.reshape(n, c, l), x3, w, b, stats[0], stats[1], false), x),
                x, weight, bias);
    }

    /**
     * Group normalisation of x (N, C, *) → same shape: the C channels form {@code numGroups}
     * groups of consecutive channels, each (n, group) is normalised over its values, then
     * scaled and shifted per channel by weight and bias (C, or null).
     */
    public static Tensor groupNorm(Tensor x, int numGroups, Tensor weight, Tensor bias, double eps) {
        String op = GROUP_NORM.name();
        Checks.float32(op, x, weight, bias);
        Checks.sameBackend(op, x, weight, bias);
        batch(op, x);
        int c = x.size(1);
        if (numGroups < 1 || c % numGroups != 0) {
            throw new IllegalArgumentException(op + ": expected the number of channels to be divisible by num_groups, got input shape "
                    + Arrays.toString(x.shape()) + " and num_groups=" + numGroups);
        }
        return affineNorm(GROUP_NORM, x, weight, bias, (k, x3, w, b) -> k.groupNorm(x3, numGroups, w, b, eps),
                (k, g3, x3, w, b, mean, rstd) -> k.groupNormBackward(g3, x3, numGroups, w, b, mean, rstd));
    }

    /**
     * Layer norm over the channels of x (N, C, *) at every (n, position), weight and bias (C) or
     * null: timm's LayerNorm2d. One fused op on the channels-first layout (no permute, no copy of
     * a channels-last view); the result is contiguous (N, C, *) like x's shape.
     */
    public static Tensor layerNormOverChannels(Tensor x, Tensor weight, Tensor bias, double eps) {
        String op = LAYER_NORM_2D.name();
        Checks.float32(op, x, weight, bias);
        Checks.sameBackend(op, x, weight, bias);
        batch(op, x);
        return affineNorm(LAYER_NORM_2D, x, weight, bias, (k, x3, w, b) -> k.layerNorm2d(x3, w, b, eps),
                (k, g3, x3, w, b, mean, rstd) -> k.layerNorm2dBackward(g3, x3, w, b, mean, rstd));
    }

    /** A norm's kernel on x (N, C, L) with (C) weight and bias, or null. */
    private interface StatsForward {
        NormKernels.NormResult run(NormKernels k, Tensor x3, Tensor w, Tensor b);
    }

    /** Its backward from the saved mean and rstd; g3 is the output gradient as (N, C, L). */
    private interface StatsBackward {
        NormKernels.NormGrads run(NormKernels k, Tensor g3, Tensor x3, Tensor w, Tensor b, Tensor mean, Tensor rstd);
    }

    /**
     * A norm of x (N, C, *) that saves its mean and rstd and scales and shifts per channel (group
     * norm, layer norm over C) as one fused op: the parameters checked against C, x seen as (N, C, L).
     */
    private static Tensor affineNorm(FusedOp<NormKernels> op, Tensor x, Tensor weight, Tensor bias,
                                     StatsForward forward, StatsBackward backward) {
        int n = x.size(0), c = x.size(1), l = spatial(x);
        checkChannels(op.name(), x, "weight", weight);
        checkChannels(op.name(), x, "bias", bias);
        Tensor x3 = x.detach().reshape(n, c, l), w = flat(weight), b = flat(bias);
        long flops = (5L + (weight == null ? 0 : 1) + (bias == null ? 0 : 1)) * x.numel();
        return op.run(x.backend(), flops, 2 * FusedOp.bytes(x) + FusedOp.bytes(weight, bias),
                k -> {
                    NormKernels.NormResult r = forward.run(k, x3, w, b);
                    return new FusedOp.Result<>(r.output().reshape(x.shape()), new Tensor[] {r.mean(), r.rstd()});
                },
                (k, stats, g) -> unflatten(backward.run(k, g.reshape(n, c, l), x3, w, b, stats[0], stats[1]), x),
                x, weight, bias);
    }

    /** running ← (1 − momentum)·running + momentum·stat, written into running's storage. */
    private static void updateInPlace(Tensor running, Tensor stat, double momentum) {
        Tensor next = running.detach().mul(1 - momentum).add(stat.mul(momentum));
        running.backend().copyInto(running.storage(), running.layout(), next.storage(), next.layout());
    }

    /** N of an (N, C, *) input; throws for rank below 2. */
    private static int batch(String op, Tensor x) {
        if (x.dim() < 2) {
            throw new IllegalArgumentException(op + ": expected an input of shape (N, C, *), got " + Arrays.toString(x.shape()));
        }
        return x.size(0);
    }

    /** The product of the dims after C (1 for an (N, C) input). */
    private static int spatial(Tensor x) {
        int l = 1;
        for (int d = 2; d < x.dim(); d++) l *= x.size(d);
        return l;
    }

    /** A per-channel tensor must be (C), C being x's dim 1. */
    private static void checkChannels(String op, Tensor x, String what, Tensor t) {
        if (t != null && (t.dim() != 1 || t.size(0) != x.size(1))) {
            throw new IllegalArgumentException(op + ": " + what + " of shape " + Arrays.toString(t.shape()) + " does not match the "
                    + x.size(1) + " channels (dim 1) of input shape " + Arrays.toString(x.shape()));
        }
    }

    private static Tensor flat(Tensor parameter) {
        return parameter == null ? null : parameter.detach();
    }

    /** The (N, C, L) input gradient back in x's shape, with the (C) weight and bias gradients. */
    private static Tensor[] unflatten(NormKernels.NormGrads gr, Tensor x) {
        return new Tensor[] {gr.input().reshape(x.shape()), gr.weight(), gr.bias()};
    }
}
