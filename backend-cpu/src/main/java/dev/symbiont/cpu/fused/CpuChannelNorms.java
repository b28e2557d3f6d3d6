package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.norm.NormKernels.BatchNormResult;
import dev.symbiont.core.fused.norm.NormKernels.NormGrads;
import dev.symbiont.core.fused.norm.NormKernels.NormResult;
import dev.symbiont.cpu.kernels.ChannelLayerNorm;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.VectorChannelNorms;

/**
 * The norm family's channel norms of x (N, C, L): batch norm and group norm on
 * {@link VectorChannelNorms}, layer norm over C (LayerNorm2d) on {@link ChannelLayerNorm}; x is read as N·C rows of L, in place when its layout allows,
 * else through one contiguous copy. Empty inputs and parameters or statistics of other shapes
 * run the reference and are counted as fallbacks. {@link CpuNorm} hands these ops here.
 */
final class CpuChannelNorms {
    private static final NormKernels REFERENCE = NormKernels.FAMILY.reference();
    private final CpuTensors io;

    CpuChannelNorms(CpuTensors io) { this.io = io; }

    BatchNormResult batchNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        String op = "batch_norm";
        if (!ready(op, x, weight, bias)) return REFERENCE.batchNorm(x, weight, bias, eps);
        int n = x.size(0), c = x.size(1), l = x.size(2);
        HeapStorage y = io.newFloats(n * c * l), mean = io.newFloats(c), var = io.newFloats(c), rstd = io.newFloats(c);
        Rows w = io.vectorOf(op, weight), b = io.vectorOf(op, bias);
        VectorChannelNorms.batchNorm(io.rows(op, x, n * c, l), n, c, l, CpuTensors.data(w), CpuTensors.offset(w),
                CpuTensors.data(b), CpuTensors.offset(b), eps, y.floats(), mean.floats(), var.floats(), rstd.floats());
        return new BatchNormResult(Tensor.of(y, n, c, l), Tensor.of(mean, c), Tensor.of(var, c), Tensor.of(rstd, c));
    }

    Tensor batchNormEval(Tensor x, Tensor mean, Tensor rstd, Tensor weight, Tensor bias) {
        String op = "batch_norm";
        if (!ready(op, x, weight, bias) || !statistic(op, mean, x.size(1)) || !statistic(op, rstd, x.size(1))) {
            return REFERENCE.batchNormEval(x, mean, rstd, weight, bias);
        }
        int n = x.size(0), c = x.size(1), l = x.size(2);
        HeapStorage y = io.newFloats(n * c * l);
        Rows w = io.vectorOf(op, weight), b = io.vectorOf(op, bias);
        VectorChannelNorms.batchNormEval(io.rows(op, x, n * c, l), n, c, l, io.vectorOf(op, mean), io.vectorOf(op, rstd),
                CpuTensors.data(w), CpuTensors.offset(w), CpuTensors.data(b), CpuTensors.offset(b), y.floats());
        return Tensor.of(y, n, c, l);
    }

    NormGrads batchNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd, boolean training) {
        String op = "batch_norm backward";
        if (!ready(op, x, weight, bias) || !CpuNorm.sameShape(op, gradY, x)
                || !statistic(op, mean, x.size(1)) || !statistic(op, rstd, x.size(1))) {
            return REFERENCE.batchNormBackward(gradY, x, weight, bias, mean, rstd, training);
        }
        int n = x.size(0), c = x.size(1), l = x.size(2);
        HeapStorage gx = io.newFloats(n * c * l);
        HeapStorage gw = weight == null ? null : io.newFloats(c), gb = bias == null ? null : io.newFloats(c);
        Rows w = io.vectorOf(op, weight);
        VectorChannelNorms.batchNormBackward(io.rows(op, gradY, n * c, l), io.rows(op, x, n * c, l), n, c, l,
                CpuTensors.data(w), CpuTensors.offset(w), io.vectorOf(op, mean), io.vectorOf(op, rstd), training,
                gx.floats(), floats(gw), floats(gb));
        return grads(gx, gw, gb, n, c, l);
    }

    NormResult groupNorm(Tensor x, int groups, Tensor weight, Tensor bias, double eps) {
        String op = "group_norm";
        if (!ready(op, x, weight, bias)) return REFERENCE.groupNorm(x, groups, weight, bias, eps);
        int n = x.size(0), c = x.size(1), l = x.size(2);
        HeapStorage y = io.newFloats(n * c * l), mean = io.newFloats(n * groups), rstd = io.newFloats(n * groups);
        Rows w = io.vectorOf(op, weight), b = io.vectorOf(op, bias);
        VectorChannelNorms.groupNorm(io.rows(op, x, n * c, l), n, c, l, groups, CpuTensors.data(w), CpuTensors.offset(w),
                CpuTensors.data(b), CpuTensors.offset(b), eps, y.floats(), mean.floats(), rstd.floats());
        return new NormResult(Tensor.of(y, n, c, l), Tensor.of(mean, n, groups), Tensor.of(rstd, n, groups));
    }

    NormGrads groupNormBackward(Tensor gradY, Tensor x, int groups, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        String op = "group_norm backward";
        if (!ready(op, x, weight, bias) || !CpuNorm.sameShape(op, gradY, x)
                || !statistic(op, mean, x.size(0) * groups) || !statistic(op, rstd, x.size(0) * groups)) {
            return REFERENCE.groupNormBackward(gradY, x, groups, weight, bias, mean, rstd);
        }
        int n = x.size(0), c = x.size(1), l = x.size(2);
        HeapStorage gx = io.newFloats(n * c * l);
        HeapStorage gw = weight == null ? null : io.newFloats(c), gb = bias == null ? null : io.newFloats(c);
        Rows w = io.vectorOf(op, weight);
        VectorChannelNorms.groupNormBackward(io.rows(op, gradY, n * c, l), io.rows(op, x, n * c, l), n, c, l, groups,
                CpuTensors.data(w), CpuTensors.offset(w), io.vectorOf(op, mean), io.vectorOf(op, rstd),
                gx.floats(), floats(gw), floats(gb));
        return grads(gx, gw, gb, n, c, l);
    }

    NormResult layerNorm2d(Tensor x, Tensor weight, Tensor bias, double eps) {
        String op = "layer_norm2d";
        if (!ready(op, x, weight, bias)) return REFERENCE.layerNorm2d(x, weight, bias, eps);
        int n = x.size(0), c = x.size(1), l = x.size(2);
        HeapStorage y = io.newFloats(n * c * l), mean = io.newFloats(n * l), rstd = io.newFloats(n * l);
        Rows w = io.vectorOf(op, weight), b = io.vectorOf(op, bias);
        ChannelLayerNorm.forward(io.rows(op, x, n * c, l), n, c, l, CpuTensors.data(w), CpuTensors.offset(w),
                CpuTensors.data(b), CpuTensors.offset(b), eps, y.floats(), mean.floats(), rstd.floats());
        return new NormResult(Tensor.of(y, n, c, l), Tensor.of(mean, n, l), Tensor.of(rstd, n, l));
    }

    NormGrads layerNorm2dBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        String op = "layer_norm2d backward";
        if (!ready(op, x, weight, bias) || !CpuNorm.sameShape(op, gradY, x)
                || !statistic(op, mean, x.size(0) * x.size(2)) || !statistic(op, rstd, x.size(0) * x.size(2))) {
            return REFERENCE.layerNorm2dBackward(gradY, x, weight, bias, mean, rstd);
        }
        int n = x.size(0), c = x.size(1), l = x.size(2);
        HeapStorage gx = io.newFloats(n * c * l);
        HeapStorage gw = weight == null ? null : io.newFloats(c), gb = bias == null ? null : io.newFloats(c);
        Rows w = io.vectorOf(op, weight);
        ChannelLayerNorm.backward(io.rows(op, gradY, n * c, l), io.rows(op, x, n * c, l), n, c, l,
                CpuTensors.data(w), CpuTensors.offset(w), io.vectorOf(op, mean), io.vectorOf(op, rstd),
                gx.floats(), floats(gw), floats(gb));
        return grads(gx, gw, gb, n, c, l);
    }

    private static NormGrads grads(HeapStorage gx, HeapStorage gw, HeapStorage gb, int n, int c, int l) {
        return new NormGrads(Tensor.of(gx, n, c, l), gw == null ? null : Tensor.of(gw, c), gb == null ? null : Tensor.of(gb, c));
    }

    private static float[] floats(HeapStorage s) { return s == null ? null : s.floats(); }

    /** x is a non-empty float32 (N, C, L) and the parameters are (C) or null; otherwise counts a fallback. */
    private static boolean ready(String op, Tensor x, Tensor weight, Tensor bias) {
        String reason = null;
        if (x.dim() != 3 || x.numel() == 0 || x.dtype() != DType.FLOAT32) reason = "input is not a non-empty float32 (N, C, L)";
        for (Tensor p : new Tensor[] {weight, bias}) {
            if (reason == null && p != null && (p.dim() != 1 || p.size(0) != x.size(1))) reason = "parameter is not (C)";
        }
        if (reason == null) return true;
        Fallbacks.record(op, reason);
        return false;
    }

    /** A statistic holds {@code count} float32 values; otherwise counts a fallback. */
    private static boolean statistic(String op, Tensor stat, int count) {
        if (stat != null && stat.numel() == count && stat.dtype() == DType.FLOAT32) return true;
        Fallbacks.record(op, "statistic has the wrong size");
        return false;
    }
}
