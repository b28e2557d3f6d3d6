package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.VectorNorms;
import dev.symbiont.cpu.kernels.VectorSoftmax;

import java.util.Arrays;

/**
 * The norm family on Vector-API row kernels ({@link VectorSoftmax}, {@link VectorNorms}):
 * softmax along the last dim and norms of (rows, cols) with (cols) parameters (also fused with
 * the residual add before them), each row read in
 * place when consecutive; batch norm, group norm and layer norm over C of (N, C, L) on {@link CpuChannelNorms}. Any
 * other input runs the reference and is counted as a fallback.
 */
public final class CpuNorm implements NormKernels {
    private static final NormKernels REFERENCE = NormKernels.FAMILY.reference();
    private final CpuTensors io;
    private final CpuChannelNorms channels;

    public CpuNorm(Backend backend) {
        this.io = new CpuTensors(backend);
        this.channels = new CpuChannelNorms(io);
    }

    // ---- softmax ---------------------------------------------------------------------------------

    @Override
    public Tensor softmax(Tensor x, int dim) {
        if (!lastDimRows("softmax", x, dim)) return REFERENCE.softmax(x, dim);
        return forwardRows("softmax", x, VectorSoftmax::softmax);
    }

    @Override
    public Tensor softmaxBackward(Tensor y, Tensor gradY, int dim) {
        String op = "softmax backward";
        if (!lastDimRows(op, y, dim) || !sameShape(op, y, gradY)) return REFERENCE.softmaxBackward(y, gradY, dim);
        return overRows(op, y, gradY, VectorSoftmax::softmaxBackward);
    }

    @Override
    public Tensor logSoftmax(Tensor x, int dim) {
        if (!lastDimRows("log_softmax", x, dim)) return REFERENCE.logSoftmax(x, dim);
        return forwardRows("log_softmax", x, VectorSoftmax::logSoftmax);
    }

    @Override
    public Tensor logSoftmaxBackward(Tensor y, Tensor gradY, int dim) {
        String op = "log_softmax backward";
        if (!lastDimRows(op, y, dim) || !sameShape(op, y, gradY)) return REFERENCE.logSoftmaxBackward(y, gradY, dim);
        return overRows(op, y, gradY, VectorSoftmax::logSoftmaxBackward);
    }

    /** A softmax-like kernel over (rows, cols): forward reads x, backward also the gradient. */
    private interface RowKernel {
        void apply(Rows x, int rows, int cols, float[] out);
    }

    private interface RowGradKernel {
        void apply(Rows y, Rows gradY, int rows, int cols, float[] out);
    }

    private Tensor forwardRows(String op, Tensor x, RowKernel kernel) {
        return overRows(op, x, null, (xs, none, rows, cols, out) -> kernel.apply(xs, rows, cols, out));
    }

    /** Runs kernel on x (and gradY) seen as (rows, last dim); the result has x's shape. */
    private Tensor overRows(String op, Tensor x, Tensor gradY, RowGradKernel kernel) {
        int cols = x.size(-1), rows = x.numel() / cols;
        HeapStorage out = io.newFloats(x.numel());
        kernel.apply(io.rows(op, x, rows, cols), gradY == null ? null : io.rows(op, gradY, rows, cols), rows, cols, out.floats());
        return Tensor.of(out, x.shape());
    }

    /** dim is the last one of a non-empty float32 tensor; otherwise counts a fallback. */
    private static boolean lastDimRows(String op, Tensor x, int dim) {
        if (x.dim() > 0 && dim == x.dim() - 1 && x.numel() > 0 && x.dtype() == DType.FLOAT32) return true;
        Fallbacks.record(op, x.numel() == 0 ? "empty input" : "dim is not the last");
        return false;
    }

    // ---- layer norm and RMS norm -------------------------------------------------------------------

    @Override
    public NormResult layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        if (!normReady("layer_norm", x, weight, bias)) return REFERENCE.layerNorm(x, weight, bias, eps);
        int rows = x.size(0), cols = x.size(1);
        HeapStorage y = io.emptyFloats(rows * cols), mean = io.emptyFloats(rows), rstd = io.emptyFloats(rows); // every row written
        Rows w = io.vectorOf("layer_norm", weight), b = io.vectorOf("layer_norm", bias);
        VectorNorms.layerNorm(io.rows("layer_norm", x, rows, cols), rows, cols,
                CpuTensors.data(w), CpuTensors.offset(w), CpuTensors.data(b), CpuTensors.offset(b), eps,
                y.floats(), mean.floats(), rstd.floats());
        return new NormResult(Tensor.of(y, rows, cols), Tensor.of(mean, rows, 1), Tensor.of(rstd, rows, 1));
    }

    @Override
    public NormGrads layerNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        return layerNormGrads("layer_norm backward", gradY, null, x, weight, bias, mean, rstd);
    }

    @Override
    public AddNormResult addLayerNorm(Tensor x, Tensor residual, Tensor weight, Tensor bias, double eps) {
        String op = "add_layer_norm";
        if (!normReady(op, x, weight, bias) || !sameShape(op, residual, x)) return REFERENCE.addLayerNorm(x, residual, weight, bias, eps);
        int rows = x.size(0), cols = x.size(1);
        HeapStorage s = io.emptyFloats(rows * cols), y = io.emptyFloats(rows * cols); // every row written
        HeapStorage mean = io.emptyFloats(rows), rstd = io.emptyFloats(rows);
        Rows w = io.vectorOf(op, weight), b = io.vectorOf(op, bias);
        VectorNorms.addLayerNorm(io.rows(op, x, rows, cols), io.rows(op, residual, rows, cols), rows, cols,
                CpuTensors.data(w), CpuTensors.offset(w), CpuTensors.data(b), CpuTensors.offset(b), eps,
                s.floats(), y.floats(), mean.floats(), rstd.floats());
        return new AddNormResult(Tensor.of(s, rows, cols), Tensor.of(y, rows, cols), Tensor.of(mean, rows, 1), Tensor.of(rstd, rows, 1));
    }

    @Override
    public NormGrads addLayerNormBackward(Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor bias,
                                          Tensor mean, Tensor rstd) {
        return layerNormGrads("add_layer_norm backward", gradY, gradSum, sum, weight, bias, mean, rstd);
    }

    /** Layer norm's gradients of x (rows, cols), plus gradSum (or null) in the input gradient. */
    private NormGrads layerNormGrads(String op, Tensor gradY, Tensor gradSum, Tensor x, Tensor weight, Tensor bias,
                                     Tensor mean, Tensor rstd) {
        if (!normReady(op, x, weight, bias) || !statsReady(op, x, mean) || !statsReady(op, x, rstd)
                || !sameShape(op, gradY, x) || (gradSum != null && !sameShape(op, gradSum, x))) {
            return REFERENCE.addLayerNormBackward(gradY, gradSum, x, weight, bias, mean, rstd);
        }
        int rows = x.size(0), cols = x.size(1);
        HeapStorage gx = io.emptyFloats(rows * cols); // every row written
        HeapStorage gw = weight == null ? null : io.newFloats(cols), gb = bias == null ? null : io.newFloats(cols);
        Rows w = io.vectorOf(op, weight);
        VectorNorms.addLayerNormBackward(io.rows(op, gradY, rows, cols), gradSum == null ? null : io.rows(op, gradSum, rows, cols),
                io.rows(op, x, rows, cols), rows, cols, CpuTensors.data(w), CpuTensors.offset(w),
                CpuTensors.stats(op, mean), CpuTensors.stats(op, rstd),
                gx.floats(), gw == null ? null : gw.floats(), gb == null ? null : gb.floats());
        return new NormGrads(Tensor.of(gx, rows, cols), gw == null ? null : Tensor.of(gw, cols),
                gb == null ? null : Tensor.of(gb, cols));
    }

    @Override
    public NormResult rmsNorm(Tensor x, Tensor weight, double eps) {
        if (!normReady("rms_norm", x, weight, null)) return REFERENCE.rmsNorm(x, weight, eps);
        int rows = x.size(0), cols = x.size(1);
        HeapStorage y = io.emptyFloats(rows * cols), rstd = io.emptyFloats(rows); // every row written
        Rows w = io.vectorOf("rms_norm", weight);
        VectorNorms.rmsNorm(io.rows("rms_norm", x, rows, cols), rows, cols,
                CpuTensors.data(w), CpuTensors.offset(w), eps, y.floats(), rstd.floats());
        return new NormResult(Tensor.of(y, rows, cols), null, Tensor.of(rstd, rows, 1));
    }

    @Override
    public NormGrads rmsNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor rstd) {
        return rmsNormGrads("rms_norm backward", gradY, null, x, weight, rstd);
    }

    @Override
    public AddNormResult addRmsNorm(Tensor x, Tensor residual, Tensor weight, double eps) {
        String op = "add_rms_norm";
        if (!normReady(op, x, weight, null) || !sameShape(op, residual, x)) return REFERENCE.addRmsNorm(x, residual, weight, eps);
        int rows = x.size(0), cols = x.size(1);
        HeapStorage s = io.emptyFloats(rows * cols), y = io.emptyFloats(rows * cols), rstd = io.emptyFloats(rows); // every row written
        Rows w = io.vectorOf(op, weight);
        VectorNorms.addRmsNorm(io.rows(op, x, rows, cols), io.rows(op, residual, rows, cols), rows, cols,
                CpuTensors.data(w), CpuTensors.offset(w), eps, s.floats(), y.floats(), rstd.floats());
        return new AddNormResult(Tensor.of(s, rows, cols), Tensor.of(y, rows, cols), null, Tensor.of(rstd, rows, 1));
    }

    @Override
    public NormGrads addRmsNormBackward(Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor rstd) {
        return rmsNormGrads("add_rms_norm backward", gradY, gradSum, sum, weight, rstd);
    }

    /** RMS norm's gradients of x (rows, cols), plus gradSum (or null) in the input gradient. */
    private NormGrads rmsNormGrads(String op, Tensor gradY, Tensor gradSum, Tensor x, Tensor weight, Tensor rstd) {
        if (!normReady(op, x, weight, null) || !statsReady(op, x, rstd) || !sameShape(op, gradY, x)
                || (gradSum != null && !sameShape(op, gradSum, x))) {
            return REFERENCE.addRmsNormBackward(gradY, gradSum, x, weight, rstd);
        }
        int rows = x.size(0), cols = x.size(1);
        HeapStorage gx = io.emptyFloats(rows * cols), gw = weight == null ? null : io.newFloats(cols); // every row of gx written
        Rows w = io.vectorOf(op, weight);
        VectorNorms.addRmsNormBackward(io.rows(op, gradY, rows, cols), gradSum == null ? null : io.rows(op, gradSum, rows, cols),
                io.rows(op, x, rows, cols), rows, cols, CpuTensors.data(w), CpuTensors.offset(w), CpuTensors.stats(op, rstd),
                gx.floats(), gw == null ? null : gw.floats());
        return new NormGrads(Tensor.of(gx, rows, cols), gw == null ? null : Tensor.of(gw, cols), null);
    }

    // ---- channel norms of (N, C, L): batch norm and group norm -----------------------------------------

    @Override
    public BatchNormResult batchNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        return channels.batchNorm(x, weight, bias, eps);
    }

    @Override
    public Tensor batchNormEval(Tensor x, Tensor mean, Tensor rstd, Tensor weight, Tensor bias) {
        return channels.batchNormEval(x, mean, rstd, weight, bias);
    }

    @Override
    public NormGrads batchNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd, boolean training) {
        return channels.batchNormBackward(gradY, x, weight, bias, mean, rstd, training);
    }

    @Override
    public NormResult groupNorm(Tensor x, int groups, Tensor weight, Tensor bias, double eps) {
        return channels.groupNorm(x, groups, weight, bias, eps);
    }

    @Override
    public NormGrads groupNormBackward(Tensor gradY, Tensor x, int groups, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        return channels.groupNormBackward(gradY, x, groups, weight, bias, mean, rstd);
    }

    @Override
    public NormResult layerNorm2d(Tensor x, Tensor weight, Tensor bias, double eps) {
        return channels.layerNorm2d(x, weight, bias, eps);
    }

    @Override
    public NormGrads layerNorm2dBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        return channels.layerNorm2dBackward(gradY, x, weight, bias, mean, rstd);
    }

    /** x is a non-empty float32 (rows, cols) and the parameters are (cols) or null; otherwise counts a fallback. */
    private static boolean normReady(String op, Tensor x, Tensor weight, Tensor bias) {
        String reason = null;
        if (x.dim() != 2 || x.numel() == 0 || x.dtype() != DType.FLOAT32) {
            reason = "input is not a non-empty float32 (rows, cols)";
        }
        for (Tensor p : new Tensor[] {weight, bias}) {
            if (reason == null && p != null && (p.dim() != 1 || p.size(0) != x.size(1))) {
                reason = "parameter is not (cols)";
            }
        }
        if (reason == null) return true;
        Fallbacks.record(op, reason);
        return false;
    }

    /** A per-row statistic of x: (rows, 1); otherwise counts a fallback. */
    private static boolean statsReady(String op, Tensor x, Tensor stat) {
        if (stat != null && stat.dim() == 2 && stat.size(0) == x.size(0) && stat.size(1) == 1) return true;
        Fallbacks.record(op, "statistic is not (rows, 1)");
        return false;
    }

    static boolean sameShape(String op, Tensor a, Tensor b) {
        if (Arrays.equals(a.shape(), b.shape())) return true;
        Fallbacks.record(op, "gradient and input shapes differ");
        return false;
    }

    @Override
    public String toString() { return "CpuNorm"; }
}
