package dev.symbiont.cuda;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.norm.ReferenceNorm;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.util.Arrays;

/**
 * The norm family on {@code norm.cu}: softmax and log_softmax along the last dim, layer norm and
 * RMS norm of (rows, cols) with (cols) parameters, and both norms fused with the residual add
 * before them, forward and backward, one block per row with warp-shuffle reductions; the weight and
 * bias gradients are a second kernel summing over rows. Strided operands are copied contiguous first.
 *
 * <p>Softmax along another dim, empty or non-float32 inputs and parameters or statistics of other
 * shapes run the reference, counted by {@link Fallbacks}. The channel norms of (N, C, L) (batch
 * norm, group norm, layer norm over C) run on {@code channel_norm.cu} through {@link CudaChannelNorms}.
 */
final class CudaNormKernels extends ReferenceNorm {
    /** Threads of a row's block: enough warps to cover a short row, at most this many. */
    static final int MAX_ROW_THREADS = 256;

    private final FusedOperands io;
    private final CudaChannelNorms channels;

    CudaNormKernels(CudaBackend backend) {
        this.io = new FusedOperands(backend);
        this.channels = new CudaChannelNorms(backend);
    }

    // ---- softmax ---------------------------------------------------------------------------------

    @Override
    public Tensor softmax(Tensor x, int dim) {
        if (!lastDim("softmax", x, dim)) return super.softmax(x, dim);
        return softmaxRows(x, false);
    }

    @Override
    public Tensor logSoftmax(Tensor x, int dim) {
        if (!lastDim("log_softmax", x, dim)) return super.logSoftmax(x, dim);
        return softmaxRows(x, true);
    }

    @Override
    public Tensor softmaxBackward(Tensor y, Tensor gradY, int dim) {
        String op = "softmax backward";
        if (!lastDim(op, y, dim) || !sameShape(op, gradY, y)) return super.softmaxBackward(y, gradY, dim);
        return softmaxBackwardRows(y, gradY, false);
    }

    @Override
    public Tensor logSoftmaxBackward(Tensor y, Tensor gradY, int dim) {
        String op = "log_softmax backward";
        if (!lastDim(op, y, dim) || !sameShape(op, gradY, y)) return super.logSoftmaxBackward(y, gradY, dim);
        return softmaxBackwardRows(y, gradY, true);
    }

    /** softmax or log_softmax of every row of x seen as (rows, last dim); the result has x's shape. */
    private Tensor softmaxRows(Tensor x, boolean log) {
        io.backend().enter();
        int cols = x.size(-1), rows = x.numel() / cols;
        Tensor xs = FusedOperands.dense(x), y = io.empty(x.shape());
        launchRows("softmax_f32", rows, cols, KernelArgs.of().pointer(FusedOperands.address(y))
                .pointer(FusedOperands.address(xs)).i32(cols).i32(log ? 1 : 0));
        return y;
    }

    private Tensor softmaxBackwardRows(Tensor y, Tensor gradY, boolean log) {
        io.backend().enter();
        int cols = y.size(-1), rows = y.numel() / cols;
        Tensor ys = FusedOperands.dense(y), gs = FusedOperands.dense(gradY), gx = io.empty(y.shape());
        launchRows("softmax_backward_f32", rows, cols, KernelArgs.of().pointer(FusedOperands.address(gx))
                .pointer(FusedOperands.address(ys)).pointer(FusedOperands.address(gs)).i32(cols).i32(log ? 1 : 0));
        return gx;
    }

    // ---- layer norm and RMS norm ---------------------------------------------------------------

    @Override
    public NormResult layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        if (!rowsReady("layer_norm", x, weight, bias)) return super.layerNorm(x, weight, bias, eps);
        AddNormResult r = normRows(x, null, weight, bias, eps, true);
        return new NormResult(r.output(), r.mean(), r.rstd());
    }

    @Override
    public NormResult rmsNorm(Tensor x, Tensor weight, double eps) {
        if (!rowsReady("rms_norm", x, weight, null)) return super.rmsNorm(x, weight, eps);
        AddNormResult r = normRows(x, null, weight, null, eps, false);
        return new NormResult(r.output(), null, r.rstd());
    }

    @Override
    public AddNormResult addLayerNorm(Tensor x, Tensor residual, Tensor weight, Tensor bias, double eps) {
        String op = "add_layer_norm";
        if (!rowsReady(op, x, weight, bias) || !sameShape(op, residual, x)) return super.addLayerNorm(x, residual, weight, bias, eps);
        return normRows(x, residual, weight, bias, eps, true);
    }

    @Override
    public AddNormResult addRmsNorm(Tensor x, Tensor residual, Tensor weight, double eps) {
        String op = "add_rms_norm";
        if (!rowsReady(op, x, weight, null) || !sameShape(op, residual, x)) return super.addRmsNorm(x, residual, weight, eps);
        return normRows(x, residual, weight, null, eps, false);
    }

    /**
     * Layer norm (centered) or RMS norm of x (rows, cols), or of x + residual when residual is given
     * (then the sum is returned too): the output, the sum or null, mean (rows, 1) or null, rstd (rows, 1).
     */
    private AddNormResult normRows(Tensor x, Tensor residual, Tensor weight, Tensor bias, double eps, boolean centered) {
        io.backend().enter();
        int rows = x.size(0), cols = x.size(1);
        Tensor xs = FusedOperands.dense(x), rs = FusedOperands.dense(residual);
        Tensor w = FusedOperands.dense(weight), b = FusedOperands.dense(bias);
        Tensor y = io.empty(rows, cols), sum = residual == null ? null : io.empty(rows, cols);
        Tensor mean = centered ? io.empty(rows, 1) : null, rstd = io.empty(rows, 1);
        launchRows("row_norm_f32", rows, cols, KernelArgs.of().pointer(FusedOperands.address(y))
                .pointer(FusedOperands.address(mean)).pointer(FusedOperands.address(rstd)).pointer(FusedOperands.address(sum))
                .pointer(FusedOperands.address(xs)).pointer(FusedOperands.address(rs))
                .pointer(FusedOperands.address(w)).pointer(FusedOperands.address(b)).i32(cols).f32((float) eps));
        return new AddNormResult(sum, y, mean, rstd);
    }

    @Override
    public NormGrads layerNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        String op = "layer_norm backward";
        if (!gradsReady(op, gradY, null, x, weight, bias, mean, rstd)) return super.layerNormBackward(gradY, x, weight, bias, mean, rstd);
        return normGrads(gradY, null, x, weight, bias, mean, rstd);
    }

    @Override
    public NormGrads addLayerNormBackward(Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor bias,
                                          Tensor mean, Tensor rstd) {
        String op = "add_layer_norm backward";
        if (!gradsReady(op, gradY, gradSum, sum, weight, bias, mean, rstd)) {
            return super.addLayerNormBackward(gradY, gradSum, sum, weight, bias, mean, rstd);
        }
        return normGrads(gradY, gradSum, sum, weight, bias, mean, rstd);
    }

    @Override
    public NormGrads rmsNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor rstd) {
        String op = "rms_norm backward";
        if (!gradsReady(op, gradY, null, x, weight, null, null, rstd)) return super.rmsNormBackward(gradY, x, weight, rstd);
        return normGrads(gradY, null, x, weight, null, null, rstd);
    }

    @Override
    public NormGrads addRmsNormBackward(Tensor gradY, Tensor gradSum, Tensor sum, Tensor weight, Tensor rstd) {
        String op = "add_rms_norm backward";
        if (!gradsReady(op, gradY, gradSum, sum, weight, null, null, rstd)) return super.addRmsNormBackward(gradY, gradSum, sum, weight, rstd);
        return normGrads(gradY, gradSum, sum, weight, null, null, rstd);
    }

    /**
     * The gradients of layer norm (mean given) or RMS norm (mean null) of x (rows, cols): the input's,
     * plus gradSum when given, by rows; weight's and bias's (cols), where given, by columns.
     */
    private NormGrads normGrads(Tensor gradY, Tensor gradSum, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        io.backend().enter();
        int rows = x.size(0), cols = x.size(1);
        Tensor gy = FusedOperands.dense(gradY), gs = FusedOperands.dense(gradSum), xs = FusedOperands.dense(x);
        Tensor w = FusedOperands.dense(weight), mu = FusedOperands.dense(mean), r = FusedOperands.dense(rstd);
        Tensor gx = io.empty(rows, cols);
        launchRows("row_norm_backward_f32", rows, cols, KernelArgs.of().pointer(FusedOperands.address(gx))
                .pointer(FusedOperands.address(gy)).pointer(FusedOperands.address(gs)).pointer(FusedOperands.address(xs))
                .pointer(FusedOperands.address(w)).pointer(FusedOperands.address(mu)).pointer(FusedOperands.address(r)).i32(cols));
        Tensor gw = weight == null ? null : io.empty(cols), gb = bias == null ? null : io.empty(cols);
        if (gw != null || gb != null) {
            io.backend().kernels().launch("norm", "norm_param_grads_f32", cols, KernelArgs.of()
                    .pointer(FusedOperands.address(gw)).pointer(FusedOperands.address(gb))
                    .pointer(FusedOperands.address(gy)).pointer(FusedOperands.address(xs))
                    .pointer(FusedOperands.address(mu)).pointer(FusedOperands.address(r)).i32(rows).i32(cols));
        }
        return new NormGrads(gx, gw, gb);
    }

    // ---- channel norms of (N, C, L) ------------------------------------------------------------

    @Override
    public BatchNormResult batchNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        return channels.batchNorm(x, weight, bias, eps);
    }

    @Override
    public Tensor batchNormEval(Tensor x, Tensor mean, Tensor rstd, Tensor weight, Tensor bias) {
        return channels.batchNormEval(x, mean, rstd, weight, bias);
    }

    @Override
    public NormGrads batchNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd,
                                       boolean training) {
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

    // ---- launching and checks -------------------------------------------------------------------

    /** One block per row, of whole warps covering the row up to {@value #MAX_ROW_THREADS} threads. */
    private void launchRows(String kernel, int rows, int cols, KernelArgs args) {
        int threads = Math.min(MAX_ROW_THREADS, (cols + 31) / 32 * 32);
        io.backend().kernels().launch("norm", kernel, Dim3.of(rows), Dim3.of(threads), 0, args);
    }

    /** dim is the last of a non-empty float32 tensor; otherwise counts a fallback. */
    private static boolean lastDim(String op, Tensor x, int dim) {
        if (!FusedOperands.nonEmptyFloats(op, x)) return false;
        if (x.dim() > 0 && dim == x.dim() - 1) return true;
        Fallbacks.record(op, "dim is not the last");
        return false;
    }

    /** x a non-empty float32 (rows, cols) and each parameter (cols) float32 or null; otherwise counts a fallback. */
    private static boolean rowsReady(String op, Tensor x, Tensor weight, Tensor bias) {
        if (!FusedOperands.nonEmptyFloats(op, x, weight, bias)) return false;
        boolean ok = x.dim() == 2;
        for (Tensor p : new Tensor[] {weight, bias}) ok &= p == null || (p.dim() == 1 && p.size(0) == x.size(1));
        if (!ok) Fallbacks.record(op, "input is not (rows, cols) or a parameter is not (cols)");
        return ok;
    }

    /** As {@link #rowsReady}, with gradients of x's shape and per-row statistics (rows, 1) (mean may be null). */
    private static boolean gradsReady(String op, Tensor gradY, Tensor gradSum, Tensor x, Tensor weight, Tensor bias,
                                      Tensor mean, Tensor rstd) {
        if (!rowsReady(op, x, weight, bias) || !sameShape(op, gradY, x) || (gradSum != null && !sameShape(op, gradSum, x))
                || !FusedOperands.nonEmptyFloats(op, gradY, gradSum, mean, rstd)) {
            return false;
        }
        for (Tensor s : new Tensor[] {mean, rstd}) {
            if (s != null && !(s.dim() == 2 && s.size(0) == x.size(0) && s.size(1) == 1)) {
                Fallbacks.record(op, "statistic is not (rows, 1)");
                return false;
            }
        }
        return true;
    }

    private static boolean sameShape(String op, Tensor a, Tensor b) {
        if (Arrays.equals(a.shape(), b.shape())) return true;
        Fallbacks.record(op, "operand shapes differ");
        return false;
    }

    @Override
    public String toString() { return "CudaNormKernels"; }
}
