package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmPath;
import dev.symbiont.cpu.kernels.BatchedMatmul;
import dev.symbiont.cpu.kernels.Broadcast;
import dev.symbiont.cpu.kernels.FlashAttention;
import dev.symbiont.cpu.kernels.FlashAttentionBackward;
import dev.symbiont.cpu.kernels.HeadRows;
import dev.symbiont.cpu.kernels.KernelSupport;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.StridedCopy;
import dev.symbiont.cpu.kernels.TileMath;
import dev.symbiont.cpu.kernels.VectorActivationGrads;
import dev.symbiont.cpu.kernels.VectorElementwise;
import dev.symbiont.cpu.kernels.VectorNorms;
import dev.symbiont.cpu.kernels.VectorReductions;
import dev.symbiont.cpu.kernels.VectorSoftmax;

import java.util.Arrays;

/**
 * The pure-Java CPU backend: the {@link ReferenceBackend} with its hot kernels replaced.
 * matmul goes through a {@link Gemm} (Vector API or EJML); unary, binary, reduce and the
 * fused softmax / layer norm / RMS norm run on Vector-API kernels ({@code dev.symbiont.cpu.kernels})
 * spread over the shared {@link CpuThreads#pool()} when the work is large. Scaled-dot-product
 * attention runs on tiled FlashAttention kernels that never allocate the sq×sk scores.
 *
 * <p>Each override takes its fast path only for the layouts it is built for (contiguous
 * operands, a bias or row statistic broadcast with stride 0, reductions over trailing or
 * leading dims, softmax along the last dim) and otherwise calls the reference kernel, so
 * every input gives the reference's answer within float32 rounding. Without the
 * {@code jdk.incubator.vector} module (or with {@code -Dsymbiont.cpu.vector=false}) the
 * Vector kernels are never loaded: everything but matmul, attention and data movement is the
 * reference, matmul is EJML, and attention keeps its tiled kernels on their scalar inner loops. Data movement (contiguous, copyInto, download, cast) always runs on the
 * plain-Java {@link StridedCopy}, whose copies are exact.
 */
public class CpuBackend extends ReferenceBackend {
    private final Gemm gemm;
    private final boolean vector;

    /** The fastest GEMM this JVM can run (logged once by the gemm package) and the vector kernels when available. */
    public CpuBackend() {
        this(Gemm.fastest(), KernelSupport.status().available());
    }

    /**
     * The given matmul path, and the vector kernels when available.
     *
     * @throws IllegalStateException for {@link GemmPath#VECTOR} when the Vector API is unavailable
     */
    public CpuBackend(GemmPath path) {
        this(Gemm.of(path), KernelSupport.status().available());
    }

    /**
     * The given matmul path; {@code vectorKernels} false keeps the reference elementwise,
     * reduction and fused kernels (the scalar twin), true requires the Vector API.
     *
     * @throws IllegalStateException when a path or the vector kernels are asked for but cannot run
     */
    public CpuBackend(GemmPath path, boolean vectorKernels) {
        this(Gemm.of(path), requireVector(vectorKernels));
    }

    private CpuBackend(Gemm gemm, boolean vector) {
        this.gemm = gemm;
        this.vector = vector;
    }

    private static boolean requireVector(boolean wanted) {
        KernelSupport.Status s = KernelSupport.status();
        if (wanted && !s.available()) throw new IllegalStateException("cpu backend: vector kernels unavailable: " + s.reason());
        return wanted;
    }

    @Override public String name() { return "cpu"; }

    /** The matmul path in use. */
    public GemmPath gemmPath() { return gemm.path(); }

    /** Whether the Vector-API kernels are in use (false: the reference kernels). */
    public boolean vectorKernels() { return vector; }

    @Override public String toString() { return "CpuBackend(gemm=" + gemm.path().id() + ", vector=" + vector + ")"; }

    // ---- data movement -------------------------------------------------------------------------

    @Override
    protected Object toContiguous(Object array, DType dtype, Layout layout) {
        return StridedCopy.toContiguous(array, dtype, layout);
    }

    @Override
    protected void copyStrided(Object from, Layout fromLayout, Object to, Layout toLayout) {
        StridedCopy.copy(from, fromLayout, to, toLayout);
    }

    /** Same dtype is a copy; float32 to/from bfloat16, float16, int32 (and to int64) run here; the rest, the reference. */
    @Override
    public Storage cast(Storage storage, Layout layout, DType to) {
        DType from = storage.dtype();
        if (from != to && !StridedCopy.converts(from, to)) return super.cast(storage, layout, to);
        Object array = heap("cast", storage, layout).array();
        if (from == to) return wrap(to, toContiguous(array, from, layout));
        int offset = layout.offset();
        if (!layout.isContiguous()) {
            array = toContiguous(array, from, layout); // untracked scratch in the source dtype
            offset = 0;
        }
        return wrap(to, StridedCopy.convert(array, from, offset, layout.numel(), to));
    }

    // ---- linear algebra ------------------------------------------------------------------------

    /** a: (batch..., m, k), b: (batch..., k, n) → contiguous (batch..., m, n). */
    @Override
    public Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout) {
        float[] as = floats("matmul", a, aLayout), bs = floats("matmul", b, bLayout);
        checkMatmulShapes(aLayout, bLayout);
        int rank = aLayout.rank();
        int[] outShape = aLayout.shape().clone();
        outShape[rank - 1] = bLayout.size(rank - 1);
        var out = newStorage(DType.FLOAT32, Layout.numel(outShape));
        BatchedMatmul.matmul(gemm, as, aLayout, bs, bLayout, out.floats());
        return out;
    }

    // ---- elementwise ---------------------------------------------------------------------------

    /** Contiguous x with a vector kernel for op; anything else goes to the reference. */
    @Override
    public Storage unary(UnaryOp op, Storage x, Layout xLayout) {
        if (!vector || !xLayout.isContiguous() || xLayout.numel() == 0 || !VectorElementwise.UNARY.contains(op)) {
            return super.unary(op, x, xLayout);
        }
        float[] xs = floats("unary " + op, x, xLayout);
        var out = newStorage(DType.FLOAT32, xLayout.numel());
        VectorElementwise.unary(op, xs, xLayout.offset(), out.floats(), xLayout.numel());
        return out;
    }

    /** Contiguous, row-broadcast (bias) or column-broadcast (row statistic, scalar) operands; else the reference. */
    @Override
    public Storage binary(BinaryOp op, Storage a, Layout aLayout, Storage b, Layout bLayout) {
        if (!vector || !VectorElementwise.BINARY.contains(op) || !Arrays.equals(aLayout.shape(), bLayout.shape())) {
            return super.binary(op, a, aLayout, b, bLayout);
        }
        Broadcast pa = Broadcast.of(aLayout), pb = Broadcast.of(bLayout);
        if (pa == null || pb == null) return super.binary(op, a, aLayout, b, bLayout);
        String name = "binary " + op;
        float[] as = floats(name, a, aLayout), bs = floats(name, b, bLayout);
        var out = newStorage(DType.FLOAT32, aLayout.numel());
        VectorElementwise.binary(op, as, pa, bs, pb, out.floats(), aLayout.numel());
        return out;
    }

    // ---- fused: activation gradients -------------------------------------------------------------

    @Override
    public Tensor geluBackward(Tensor x, Tensor gradY, boolean tanhApproximation) {
        if (!activationReady(x, gradY)) return super.geluBackward(x, gradY, tanhApproximation);
        return activationBackward(tanhApproximation ? UnaryOp.GELU_TANH : UnaryOp.GELU_ERF, x, gradY);
    }

    @Override
    public Tensor siluBackward(Tensor x, Tensor gradY) {
        if (!activationReady(x, gradY)) return super.siluBackward(x, gradY);
        return activationBackward(UnaryOp.SILU, x, gradY);
    }

    /** Vector kernels on, x and gradY non-empty float32 of one shape. */
    private boolean activationReady(Tensor x, Tensor gradY) {
        return vector && x.numel() > 0 && x.dtype() == DType.FLOAT32 && gradY.dtype() == DType.FLOAT32
                && Arrays.equals(x.shape(), gradY.shape());
    }

    /** Strided or broadcast operands (the gradient of a sum is an expanded scalar) are copied first: one pass, not nine. */
    private Tensor activationBackward(UnaryOp op, Tensor x, Tensor gradY) {
        String name = op.opName() + " backward";
        x = x.contiguous();
        gradY = gradY.contiguous();
        float[] xs = floats(name, x.storage(), x.layout()), gs = floats(name, gradY.storage(), gradY.layout());
        var out = newStorage(DType.FLOAT32, x.numel());
        VectorActivationGrads.backward(op, xs, x.layout().offset(), gs, gradY.layout().offset(), out.floats(), x.numel());
        return Tensor.of(out, x.shape());
    }

    // ---- reductions ----------------------------------------------------------------------------

    /** SUM/MAX/MIN of a contiguous x over its trailing dims (last, or all) or its leading dims; else the reference. */
    @Override
    public Storage reduce(ReduceOp op, Storage x, Layout xLayout, int[] dims) {
        int rank = xLayout.rank(), n = xLayout.numel();
        if (!vector || op.isArg() || !xLayout.isContiguous() || n == 0 || dims.length == 0) {
            return super.reduce(op, x, xLayout, dims);
        }
        boolean trailing = isRun(dims, rank - dims.length), leading = isRun(dims, 0);
        if (!trailing && !leading) return super.reduce(op, x, xLayout, dims);
        float[] xs = floats("reduce " + op, x, xLayout);
        int reduced = 1;
        for (int d : dims) reduced *= xLayout.size(d);
        int kept = n / reduced;
        var out = newStorage(DType.FLOAT32, kept);
        if (trailing) {
            VectorReductions.reduceRows(op, xs, xLayout.offset(), kept, reduced, out.floats());
        } else {
            VectorReductions.reduceColumns(op, xs, xLayout.offset(), reduced, kept, out.floats());
        }
        return out;
    }

    /** True when dims are exactly start, start+1, ..., start+dims.length−1. */
    private static boolean isRun(int[] dims, int start) {
        for (int i = 0; i < dims.length; i++) if (dims[i] != start + i) return false;
        return true;
    }

    // ---- fused: softmax ------------------------------------------------------------------------

    @Override
    public Tensor softmax(Tensor x, int dim) {
        if (!lastDimRows(x, dim)) return super.softmax(x, dim);
        int cols = x.size(-1), rows = x.numel() / cols;
        var out = newStorage(DType.FLOAT32, x.numel());
        VectorSoftmax.softmax(rows("softmax", x, rows, cols), rows, cols, out.floats());
        return Tensor.of(out, x.shape());
    }

    @Override
    public Tensor softmaxBackward(Tensor y, Tensor gradY, int dim) {
        if (!lastDimRows(y, dim) || !Arrays.equals(y.shape(), gradY.shape())) return super.softmaxBackward(y, gradY, dim);
        int cols = y.size(-1), rows = y.numel() / cols;
        var out = newStorage(DType.FLOAT32, y.numel());
        VectorSoftmax.softmaxBackward(rows("softmax backward", y, rows, cols), rows("softmax backward", gradY, rows, cols),
                rows, cols, out.floats());
        return Tensor.of(out, y.shape());
    }

    @Override
    public Tensor logSoftmax(Tensor x, int dim) {
        if (!lastDimRows(x, dim)) return super.logSoftmax(x, dim);
        int cols = x.size(-1), rows = x.numel() / cols;
        var out = newStorage(DType.FLOAT32, x.numel());
        VectorSoftmax.logSoftmax(rows("log_softmax", x, rows, cols), rows, cols, out.floats());
        return Tensor.of(out, x.shape());
    }

    @Override
    public Tensor logSoftmaxBackward(Tensor y, Tensor gradY, int dim) {
        if (!lastDimRows(y, dim) || !Arrays.equals(y.shape(), gradY.shape())) return super.logSoftmaxBackward(y, gradY, dim);
        int cols = y.size(-1), rows = y.numel() / cols;
        var out = newStorage(DType.FLOAT32, y.numel());
        VectorSoftmax.logSoftmaxBackward(rows("log_softmax backward", y, rows, cols),
                rows("log_softmax backward", gradY, rows, cols), rows, cols, out.floats());
        return Tensor.of(out, y.shape());
    }

    /** The vector kernels are on, dim is the last one and x is a non-empty float32 tensor. */
    private boolean lastDimRows(Tensor x, int dim) {
        return vector && x.dim() > 0 && dim == x.dim() - 1 && x.numel() > 0 && x.dtype() == DType.FLOAT32;
    }

    // ---- fused: norms --------------------------------------------------------------------------

    @Override
    public NormResult layerNorm(Tensor x, Tensor weight, Tensor bias, double eps) {
        if (!normReady(x, weight, bias)) return super.layerNorm(x, weight, bias, eps);
        int rows = x.size(0), cols = x.size(1);
        var y = newStorage(DType.FLOAT32, rows * cols);
        var mean = newStorage(DType.FLOAT32, rows);
        var rstd = newStorage(DType.FLOAT32, rows);
        Rows w = vectorOf("layer_norm", weight), b = vectorOf("layer_norm", bias);
        VectorNorms.layerNorm(rows("layer_norm", x, rows, cols), rows, cols,
                w == null ? null : w.data(), w == null ? 0 : w.offset(),
                b == null ? null : b.data(), b == null ? 0 : b.offset(), eps,
                y.floats(), mean.floats(), rstd.floats());
        return new NormResult(Tensor.of(y, rows, cols), Tensor.of(mean, rows, 1), Tensor.of(rstd, rows, 1));
    }

    @Override
    public NormGrads layerNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor bias, Tensor mean, Tensor rstd) {
        if (!normReady(x, weight, bias) || !statsReady(x, mean) || !statsReady(x, rstd)
                || !Arrays.equals(gradY.shape(), x.shape())) {
            return super.layerNormBackward(gradY, x, weight, bias, mean, rstd);
        }
        int rows = x.size(0), cols = x.size(1);
        String op = "layer_norm backward";
        var gx = newStorage(DType.FLOAT32, rows * cols);
        var gw = weight == null ? null : newStorage(DType.FLOAT32, cols);
        var gb = bias == null ? null : newStorage(DType.FLOAT32, cols);
        Rows w = vectorOf(op, weight);
        VectorNorms.layerNormBackward(rows(op, gradY, rows, cols), rows(op, x, rows, cols), rows, cols,
                w == null ? null : w.data(), w == null ? 0 : w.offset(), stats(op, mean), stats(op, rstd),
                gx.floats(), gw == null ? null : gw.floats(), gb == null ? null : gb.floats());
        return new NormGrads(Tensor.of(gx, rows, cols), gw == null ? null : Tensor.of(gw, cols),
                gb == null ? null : Tensor.of(gb, cols));
    }

    @Override
    public NormResult rmsNorm(Tensor x, Tensor weight, double eps) {
        if (!normReady(x, weight, null)) return super.rmsNorm(x, weight, eps);
        int rows = x.size(0), cols = x.size(1);
        var y = newStorage(DType.FLOAT32, rows * cols);
        var rstd = newStorage(DType.FLOAT32, rows);
        Rows w = vectorOf("rms_norm", weight);
        VectorNorms.rmsNorm(rows("rms_norm", x, rows, cols), rows, cols,
                w == null ? null : w.data(), w == null ? 0 : w.offset(), eps, y.floats(), rstd.floats());
        return new NormResult(Tensor.of(y, rows, cols), null, Tensor.of(rstd, rows, 1));
    }

    @Override
    public NormGrads rmsNormBackward(Tensor gradY, Tensor x, Tensor weight, Tensor rstd) {
        if (!normReady(x, weight, null) || !statsReady(x, rstd) || !Arrays.equals(gradY.shape(), x.shape())) {
            return super.rmsNormBackward(gradY, x, weight, rstd);
        }
        int rows = x.size(0), cols = x.size(1);
        String op = "rms_norm backward";
        var gx = newStorage(DType.FLOAT32, rows * cols);
        var gw = weight == null ? null : newStorage(DType.FLOAT32, cols);
        Rows w = vectorOf(op, weight);
        VectorNorms.rmsNormBackward(rows(op, gradY, rows, cols), rows(op, x, rows, cols), rows, cols,
                w == null ? null : w.data(), w == null ? 0 : w.offset(), stats(op, rstd),
                gx.floats(), gw == null ? null : gw.floats());
        return new NormGrads(Tensor.of(gx, rows, cols), gw == null ? null : Tensor.of(gw, cols), null);
    }

    /** Vector kernels on, x is a non-empty (rows, cols) and the parameters are (cols) or null. */
    private boolean normReady(Tensor x, Tensor weight, Tensor bias) {
        if (!vector || x.dim() != 2 || x.numel() == 0) return false;
        int cols = x.size(1);
        for (Tensor p : new Tensor[] {weight, bias}) {
            if (p != null && (p.dim() != 1 || p.size(0) != cols)) return false;
        }
        return true;
    }

    /** A per-row statistic of x: (rows, 1). */
    private static boolean statsReady(Tensor x, Tensor stat) {
        return stat != null && stat.dim() == 2 && stat.size(0) == x.size(0) && stat.size(1) == 1;
    }

    // ---- fused: attention ----------------------------------------------------------------------

    /**
     * Tiled FlashAttention ({@link FlashAttention}): the (batch, heads, sq, sk) scores are never
     * allocated. Runs on the Vector API when the vector kernels are on and on the scalar twin
     * otherwise, so the memory saving does not depend on the JVM.
     */
    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        if (!attentionReady(q, k, v, mask)) return super.attention(q, k, v, mask, causal, scale);
        String op = "scaled_dot_product_attention";
        FlashAttention.Dims dims = attentionDims(q, k);
        var out = newStorage(DType.FLOAT32, q.numel());
        var lse = newStorage(DType.FLOAT32, dims.batch() * dims.heads() * dims.sq());
        FlashAttention.forward(TileMath.of(vector), dims, headRows(op, q), headRows(op, k), headRows(op, v),
                maskRows(op, mask, dims), causal, (float) scale, out.floats(), lse.floats());
        return new AttentionResult(Tensor.of(out, q.shape()), Tensor.of(lse, dims.batch(), dims.heads(), dims.sq()));
    }

    /** FlashAttention-2's backward ({@link FlashAttentionBackward}): P is recomputed block by block from the logsumexp. */
    @Override
    public AttentionGrads attentionBackward(Tensor gradOut, Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal,
                                            double scale, Tensor out, Tensor logsumexp) {
        int[] lseShape = {q.size(0), q.size(1), q.size(2)};
        if (!attentionReady(q, k, v, mask) || !Arrays.equals(gradOut.shape(), q.shape()) || !Arrays.equals(out.shape(), q.shape())
                || !Arrays.equals(logsumexp.shape(), lseShape) || gradOut.dtype() != DType.FLOAT32
                || out.dtype() != DType.FLOAT32 || logsumexp.dtype() != DType.FLOAT32) {
            return super.attentionBackward(gradOut, q, k, v, mask, causal, scale, out, logsumexp);
        }
        String op = "scaled_dot_product_attention backward";
        FlashAttention.Dims dims = attentionDims(q, k);
        var dq = newStorage(DType.FLOAT32, q.numel());
        var dk = newStorage(DType.FLOAT32, k.numel());
        var dv = newStorage(DType.FLOAT32, k.numel());
        floats(op, logsumexp.storage(), logsumexp.layout());
        float[] lse = (float[]) download(logsumexp.storage(), logsumexp.layout()); // (batch, heads, sq): small
        FlashAttentionBackward.backward(TileMath.of(vector), dims, headRows(op, q), headRows(op, k), headRows(op, v),
                maskRows(op, mask, dims), causal, (float) scale, headRows(op, out), headRows(op, gradOut), lse,
                dq.floats(), dk.floats(), dv.floats());
        return new AttentionGrads(Tensor.of(dq, q.shape()), Tensor.of(dk, k.shape()), Tensor.of(dv, k.shape()));
    }

    /** Float32 q, k, v of rank 4 that core's checks would accept, and a mask that broadcasts; else the reference decides. */
    private static boolean attentionReady(Tensor q, Tensor k, Tensor v, Tensor mask) {
        if (q.dim() != 4 || k.dim() != 4 || !Arrays.equals(k.shape(), v.shape())) return false;
        for (Tensor t : new Tensor[] {q, k, v, mask}) if (t != null && t.dtype() != DType.FLOAT32) return false;
        int kvHeads = k.size(1);
        if (q.size(0) != k.size(0) || q.size(3) != k.size(3) || kvHeads == 0 || q.size(1) % kvHeads != 0) return false;
        if (mask == null) return true;
        try {
            mask.layout().expand(q.size(0), q.size(1), q.size(2), k.size(2));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static FlashAttention.Dims attentionDims(Tensor q, Tensor k) {
        return new FlashAttention.Dims(q.size(0), q.size(1), k.size(1), q.size(2), k.size(2), q.size(3));
    }

    /** A 4-D tensor whose rows the kernel reads in place when they are consecutive, else a contiguous scratch copy. */
    private HeadRows headRows(String op, Tensor t) {
        Layout l = t.layout();
        float[] data = floats(op, t.storage(), l);
        if (l.stride(3) == 1 || l.size(3) <= 1) return new HeadRows(data, l.offset(), l.stride(0), l.stride(1), l.stride(2), 1);
        return HeadRows.contiguous((float[]) download(t.storage(), l), l.size(1), l.size(2), l.size(3));
    }

    /** The mask broadcast to (batch, heads, sq, sk) and read through its strides (0 on broadcast dims), or null. */
    private static HeadRows maskRows(String op, Tensor mask, FlashAttention.Dims dims) {
        if (mask == null) return null;
        Layout l = mask.layout().expand(dims.batch(), dims.heads(), dims.sq(), dims.sk());
        float[] data = floats(op, mask.storage(), l);
        return new HeadRows(data, l.offset(), l.stride(0), l.stride(1), l.stride(2), l.stride(3));
    }

    // ---- reading tensors as rows ---------------------------------------------------------------

    /**
     * t seen as (rows, cols) with each row consecutive in memory: its own storage when its
     * layout allows that view, else a contiguous host copy (untracked scratch, dropped after the kernel).
     */
    private Rows rows(String op, Tensor t, int rows, int cols) {
        Layout view = t.layout().reshapeView(new int[] {rows, cols});
        if (view != null && (view.stride(1) == 1 || cols == 1)) {
            float[] data = floats(op, t.storage(), t.layout());
            return new Rows(data, view.offset(), rows == 1 ? 0 : view.stride(0));
        }
        floats(op, t.storage(), t.layout()); // dtype and bounds checks, naming the op
        return new Rows((float[]) download(t.storage(), t.layout()), 0, cols); // a scratch copy, not a storage
    }

    /** A 1-D parameter as a run of consecutive elements, or null. */
    private Rows vectorOf(String op, Tensor p) {
        return p == null ? null : rows(op, p, 1, p.numel());
    }

    /** A (rows, 1) statistic: element r at offset + r·stride. */
    private static Rows stats(String op, Tensor stat) {
        float[] data = floats(op, stat.storage(), stat.layout());
        return new Rows(data, stat.layout().offset(), stat.layout().stride(0));
    }
}
