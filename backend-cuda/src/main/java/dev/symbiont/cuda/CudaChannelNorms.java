package dev.symbiont.cuda;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.norm.NormKernels.BatchNormResult;
import dev.symbiont.core.fused.norm.NormKernels.NormGrads;
import dev.symbiont.core.fused.norm.NormKernels.NormResult;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The norm family's channel norms of x (N, C, L) on {@code channel_norm.cu}: batch norm and group
 * norm take their statistics with one block per statistic (a channel; an image's group of
 * channels), layer norm over C with one thread per (n, l) column; the normalisation, the input
 * gradient and the weight and bias gradients (one block per channel) are shared by the three,
 * which differ only in which statistic an element belongs to ({@code StatMap}). Strided operands
 * are copied contiguous first; non-float32 or empty inputs and parameters or statistics of other
 * shapes run the reference, counted by {@link Fallbacks}. {@link CudaNormKernels} hands these ops here.
 */
final class CudaChannelNorms {
    private static final NormKernels REFERENCE = NormKernels.FAMILY.reference();
    private static final String GROUP = "channel_norm";
    /** Threads of a block reducing one statistic or one channel. */
    private static final int BLOCK = 256;

    private final FusedOperands io;

    CudaChannelNorms(CudaBackend backend) { this.io = new FusedOperands(backend); }

    BatchNormResult batchNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        if (!ready("batch_norm", x, weight, bias)) return REFERENCE.batchNorm(x, weight, bias, eps);
        io.backend().enter();
        int n = x.size(0), c = x.size(1), l = x.size(2);
        Tensor xs = FusedOperands.dense(x), mean = io.empty(c), var = io.empty(c), rstd = io.empty(c);
        moments(mean, var, rstd, xs, l, (long) c * l, n, l, eps);
        Tensor y = affine(xs, mean, rstd, weight, bias, batchMap(x));
        return new BatchNormResult(y, mean, var, rstd);
    }

    Tensor batchNormEval(Tensor x, Tensor mean, Tensor rstd, Tensor weight, Tensor bias) {
        String op = "batch_norm";
        if (!ready(op, x, weight, bias) || !statistic(op, mean, x.size(1)) || !statistic(op, rstd, x.size(1))) {
            return REFERENCE.batchNormEval(x, mean, rstd, weight, bias);
        }
        io.backend().enter();
        return affine(FusedOperands.dense(x), FusedOperands.dense(mean), FusedOperands.dense(rstd), weight, bias, batchMap(x));
    }

    NormGrads batchNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd, boolean training) {
        String op = "batch_norm backward";
        if (!gradsReady(op, gradY, x, weight, bias) || !statistic(op, mean, x.size(1)) || !statistic(op, rstd, x.size(1))) {
            return REFERENCE.batchNormBackward(gradY, x, weight, bias, mean, rstd, training);
        }
        int n = x.size(0), c = x.size(1), l = x.size(2);
        return grads(gradY, x, weight, bias, mean, rstd, batchMap(x), training ? new Runs(c, l, (long) c * l, n, l) : null);
    }

    NormResult groupNorm(Tensor x, int groups, Tensor weight, Tensor bias, double eps) {
        if (!ready("group_norm", x, weight, bias)) return REFERENCE.groupNorm(x, groups, weight, bias, eps);
        io.backend().enter();
        int n = x.size(0), run = x.size(1) / groups * x.size(2);
        Tensor xs = FusedOperands.dense(x), mean = io.empty(n, groups), rstd = io.empty(n, groups);
        moments(mean, null, rstd, xs, run, run, 1, run, eps);
        return new NormResult(affine(xs, mean, rstd, weight, bias, groupMap(x, groups)), mean, rstd);
    }

    NormGrads groupNormBackward(Tensor gradY, Tensor x, int groups, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        String op = "group_norm backward";
        int n = x.size(0);
        if (!gradsReady(op, gradY, x, weight, bias) || !statistic(op, mean, n * groups) || !statistic(op, rstd, n * groups)) {
            return REFERENCE.groupNormBackward(gradY, x, groups, weight, bias, mean, rstd);
        }
        int run = x.size(1) / groups * x.size(2);
        return grads(gradY, x, weight, bias, mean, rstd, groupMap(x, groups), new Runs(n * groups, run, run, 1, run));
    }

    NormResult layerNorm2d(Tensor x, Tensor weight, Tensor bias, double eps) {
        if (!ready("layer_norm2d", x, weight, bias)) return REFERENCE.layerNorm2d(x, weight, bias, eps);
        io.backend().enter();
        int n = x.size(0), l = x.size(2);
        Tensor xs = FusedOperands.dense(x), mean = io.empty(n, l), rstd = io.empty(n, l);
        byte[] map = columnMap(x);
        io.backend().kernels().launch(GROUP, "column_moments_f32", (long) n * l, KernelArgs.of().pointer(FusedOperands.address(mean))
                .pointer(FusedOperands.address(rstd)).pointer(FusedOperands.address(xs)).struct(map, 4).f32((float) eps));
        return new NormResult(affine(xs, mean, rstd, weight, bias, map), mean, rstd);
    }

    NormGrads layerNorm2dBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        String op = "layer_norm2d backward";
        int columns = x.size(0) * x.size(2);
        if (!gradsReady(op, gradY, x, weight, bias) || !statistic(op, mean, columns) || !statistic(op, rstd, columns)) {
            return REFERENCE.layerNorm2dBackward(gradY, x, weight, bias, mean, rstd);
        }
        return grads(gradY, x, weight, bias, mean, rstd, columnMap(x), Runs.COLUMNS);
    }

    // ---- the shared kernels --------------------------------------------------------------------

    /**
     * Which values each statistic reduces in the block kernels: {@code runs} runs of {@code runLen}
     * consecutive values, statistic s's first at s·base, each next {@code stride} further;
     * {@link #COLUMNS} marks layer norm over C, whose statistics are per-thread columns.
     */
    private record Runs(int stats, long base, long stride, int runs, int runLen) {
        static final Runs COLUMNS = new Runs(0, 0, 0, 0, 0);

        long count() { return (long) runs * runLen; }
    }

    private void moments(Tensor mean, Tensor var, Tensor rstd, Tensor x, long base, long stride, int runs, int runLen, double eps) {
        io.backend().kernels().launch(GROUP, "channel_moments_f32", Dim3.of((int) rstd.numel()), Dim3.of(BLOCK), 0,
                KernelArgs.of().pointer(FusedOperands.address(mean)).pointer(FusedOperands.address(var))
                        .pointer(FusedOperands.address(rstd)).pointer(FusedOperands.address(x))
                        .i64(base).i64(stride).i32(runs).i32(runLen).f32((float) eps));
    }

    /** y = (x − mean[s])·rstd[s]·weight[c] + bias[c] with s as {@code map} says: x's shape. */
    private Tensor affine(Tensor x, Tensor mean, Tensor rstd, Tensor weight, Tensor bias, byte[] map) {
        Tensor y = io.empty(x.shape()), w = FusedOperands.dense(weight), b = FusedOperands.dense(bias);
        io.backend().kernels().launch(GROUP, "channel_affine_f32", x.numel(), KernelArgs.of().pointer(FusedOperands.address(y))
                .pointer(FusedOperands.address(x)).pointer(FusedOperands.address(mean)).pointer(FusedOperands.address(rstd))
                .pointer(FusedOperands.address(w)).pointer(FusedOperands.address(b)).struct(map, 4));
        return y;
    }

    /**
     * The gradients of a channel norm: with {@code runs} null the statistics were fixed (batch norm
     * in eval mode), so the input gradient is ĝ·rstd; otherwise it goes through them, their sums of
     * ĝ and ĝ·x̂ taken first, by blocks over {@code runs} or by columns for layer norm over C.
     */
    private NormGrads grads(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd, byte[] map, Runs runs) {
        io.backend().enter();
        int n = x.size(0), c = x.size(1), l = x.size(2);
        Tensor gy = FusedOperands.dense(gradY), xs = FusedOperands.dense(x), w = FusedOperands.dense(weight);
        Tensor mu = FusedOperands.dense(mean), r = FusedOperands.dense(rstd);
        Tensor sumG = null, sumGX = null;
        float count = 1;
        if (runs == Runs.COLUMNS) {
            sumG = io.empty(n, l);
            sumGX = io.empty(n, l);
            count = c;
            io.backend().kernels().launch(GROUP, "column_grad_sums_f32", (long) n * l, sums(sumG, sumGX, gy, xs, w, mu, r).struct(map, 4));
        } else if (runs != null) {
            sumG = io.empty(runs.stats());
            sumGX = io.empty(runs.stats());
            count = runs.count();
            io.backend().kernels().launch(GROUP, "channel_grad_sums_f32", Dim3.of(runs.stats()), Dim3.of(BLOCK), 0,
                    sums(sumG, sumGX, gy, xs, w, mu, r).i64(runs.base()).i64(runs.stride()).i32(runs.runs()).i32(runs.runLen())
                            .struct(map, 4));
        }
        Tensor gx = io.empty(x.shape());
        io.backend().kernels().launch(GROUP, "channel_input_grad_f32", x.numel(), KernelArgs.of().pointer(FusedOperands.address(gx))
                .pointer(FusedOperands.address(gy)).pointer(FusedOperands.address(xs)).pointer(FusedOperands.address(w))
                .pointer(FusedOperands.address(mu)).pointer(FusedOperands.address(r)).pointer(FusedOperands.address(sumG))
                .pointer(FusedOperands.address(sumGX)).f32(count).struct(map, 4));
        Tensor gw = weight == null ? null : io.empty(c), gb = bias == null ? null : io.empty(c);
        if (gw != null || gb != null) {
            io.backend().kernels().launch(GROUP, "channel_param_grads_f32", Dim3.of(c), Dim3.of(BLOCK), 0, KernelArgs.of()
                    .pointer(FusedOperands.address(gw)).pointer(FusedOperands.address(gb)).pointer(FusedOperands.address(gy))
                    .pointer(FusedOperands.address(xs)).pointer(FusedOperands.address(mu)).pointer(FusedOperands.address(r))
                    .struct(map, 4));
        }
        return new NormGrads(gx, gw, gb);
    }

    /** The leading arguments of the gradient-sum kernels. */
    private static KernelArgs sums(Tensor sumG, Tensor sumGX, Tensor gy, Tensor x, Tensor w, Tensor mean, Tensor rstd) {
        return KernelArgs.of().pointer(FusedOperands.address(sumG)).pointer(FusedOperands.address(sumGX))
                .pointer(FusedOperands.address(gy)).pointer(FusedOperands.address(x)).pointer(FusedOperands.address(w))
                .pointer(FusedOperands.address(mean)).pointer(FusedOperands.address(rstd));
    }

    // ---- statistic maps and checks -------------------------------------------------------------

    /** Batch norm: statistic c. */
    private static byte[] batchMap(Tensor x) { return statMap(x, 0, 1, 0); }

    /** Group norm: statistic n·groups + c / (C / groups). */
    private static byte[] groupMap(Tensor x, int groups) { return statMap(x, groups, x.size(1) / groups, 0); }

    /** Layer norm over C: statistic n·L + l. */
    private static byte[] columnMap(Tensor x) { return statMap(x, x.size(2), x.size(1), 1); }

    /** The kernels' {@code StatMap}: x's (N, C, L) and s = n·perN + c / channelsPer + l·perL. */
    private static byte[] statMap(Tensor x, int perN, int channelsPer, int perL) {
        ByteBuffer buf = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(x.size(0)).putInt(x.size(1)).putInt(x.size(2)).putInt(perN).putInt(channelsPer).putInt(perL);
        return buf.array();
    }

    /** x a non-empty float32 (N, C, L) and weight and bias (C) float32 or null; otherwise counts a fallback. */
    private static boolean ready(String op, Tensor x, Tensor weight, Tensor bias) {
        if (!FusedOperands.nonEmptyFloats(op, x, weight, bias)) return false;
        boolean ok = x.dim() == 3;
        for (Tensor p : new Tensor[] {weight, bias}) ok &= p == null || (p.dim() == 1 && x.dim() == 3 && p.size(0) == x.size(1));
        if (!ok) Fallbacks.record(op, "input is not (N, C, L) or a parameter is not (C)");
        return ok;
    }

    /** As {@link #ready}, with gradY float32 of x's shape. */
    private static boolean gradsReady(String op, Tensor gradY, Tensor x, Tensor weight, Tensor bias) {
        if (!ready(op, x, weight, bias) || !FusedOperands.nonEmptyFloats(op, gradY)) return false;
        if (java.util.Arrays.equals(gradY.shape(), x.shape())) return true;
        Fallbacks.record(op, "operand shapes differ");
        return false;
    }

    /** A float32 statistic of {@code count} elements; otherwise counts a fallback. */
    private static boolean statistic(String op, Tensor s, int count) {
        if (s != null && s.dtype() == dev.symbiont.core.DType.FLOAT32 && s.numel() == count) return true;
        Fallbacks.record(op, "statistic is missing, not float32 or of the wrong size");
        return false;
    }
}
