package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.backend.RandomKind;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.Family;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.linear.LinearKernels;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cpu.fused.CpuActivation;
import dev.symbiont.cpu.fused.CpuAttention;
import dev.symbiont.cpu.fused.CpuConv;
import dev.symbiont.cpu.fused.CpuLinear;
import dev.symbiont.cpu.fused.CpuMoe;
import dev.symbiont.cpu.fused.CpuNorm;
import dev.symbiont.cpu.fused.CpuOptim;
import dev.symbiont.cpu.fused.CpuScan;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmPath;
import dev.symbiont.cpu.kernels.BatchedMatmul;
import dev.symbiont.cpu.kernels.Broadcast;
import dev.symbiont.cpu.kernels.KernelSupport;
import dev.symbiont.cpu.kernels.PhiloxKernel;
import dev.symbiont.cpu.kernels.RowScatter;
import dev.symbiont.cpu.kernels.StridedCopy;
import dev.symbiont.cpu.kernels.VectorElementwise;
import dev.symbiont.cpu.kernels.VectorReductions;

import java.util.Arrays;
import java.util.Map;

/**
 * The pure-Java CPU backend: the {@link ReferenceBackend} with its hot primitives replaced and
 * kernels of its own for six fused families. matmul goes through a {@link Gemm} (Vector API
 * or EJML); unary, binary and reduce run on Vector-API kernels ({@code dev.symbiont.cpu.kernels})
 * spread over the shared {@link CpuThreads#pool()} when the work is large. The fused families
 * live in {@code dev.symbiont.cpu.fused}: {@link CpuNorm} (softmax, layer and RMS norm on row
 * kernels), {@link CpuActivation} (GELU/SiLU gradients in one pass), {@link CpuAttention}
 * (tiled FlashAttention that never allocates the sq×sk scores), {@link CpuScan} (linear and
 * selective scans that never allocate anything of size L·N) and {@link CpuMoe} (counting-sort
 * permute, grouped expert GEMMs on the backend's GEMM, combine in one pass over the tokens) and
 * {@link CpuConv} (im2col panels on the GEMM, 1×1 as a plain GEMM, direct depthwise, pooling loops).
 *
 * <p>Each fast kernel takes its fast path only for the layouts it is built for (contiguous
 * operands, a bias or row statistic broadcast with stride 0, reductions over trailing or
 * leading dims, softmax along the last dim) and otherwise calls the reference, counted by
 * {@link Fallbacks} so that a silently scalar path shows in a profile. Without the
 * {@code jdk.incubator.vector} module (or with {@code -Dsymbiont.cpu.vector=false}) the
 * Vector kernels are never loaded: elementwise, reductions and the norm and activation
 * families are the reference, matmul is EJML, attention keeps its tiled kernels on their
 * scalar inner loops, and the scans run their exp in plain Java, conv its depthwise taps.
 * Data movement (contiguous, copyInto, download, cast) always runs on the
 * plain-Java {@link StridedCopy}, whose copies are exact.
 */
public class CpuBackend extends ReferenceBackend {
    private final Gemm gemm;
    private final boolean vector;
    private final Map<Family<?>, Object> families;

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
        this.families = vector
                ? Map.of(NormKernels.FAMILY, new CpuNorm(this), ActivationKernels.FAMILY, new CpuActivation(this),
                         AttentionKernels.FAMILY, new CpuAttention(this, true),
                         ScanKernels.FAMILY, new CpuScan(this, true), MoeKernels.FAMILY, new CpuMoe(this, gemm),
                         LinearKernels.FAMILY, new CpuLinear(this, gemm, true), OptimKernels.FAMILY, new CpuOptim(this),
                         ConvKernels.FAMILY, new CpuConv(this, gemm, true))
                : Map.of(AttentionKernels.FAMILY, new CpuAttention(this, false),
                         ScanKernels.FAMILY, new CpuScan(this, false), MoeKernels.FAMILY, new CpuMoe(this, gemm),
                         LinearKernels.FAMILY, new CpuLinear(this, gemm, false), ConvKernels.FAMILY, new CpuConv(this, gemm, false));
    }

    /** The norm, activation, attention, scan, moe, linear, optim and conv kernels; without the vector kernels, attention (on scalar tiles), scan, moe, linear and conv. */
    @Override
    public <K> K fused(Family<K> family) {
        return family.contract().cast(families.get(family));
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

    /** Whole rows added at 1-D row ids (an embedding's gradient) by {@link RowScatter}; any other pattern by the reference. */
    @Override
    public Storage scatterAdd(Storage base, Layout baseLayout, int dim, Storage index, Layout indexLayout,
                              Storage src, Layout srcLayout) {
        HeapStorage is = heap("scatterAdd", index, indexLayout), ss = heap("scatterAdd", src, srcLayout);
        float[] bs = HeapStorage.floats("scatterAdd", base, baseLayout);
        int[] ids = RowScatter.applies(dim, baseLayout, is, indexLayout, ss, srcLayout)
                ? RowScatter.rowIds(is, indexLayout, baseLayout.size(0)) : null;
        if (ids == null) return super.scatterAdd(base, baseLayout, dim, index, indexLayout, src, srcLayout);
        HeapStorage out = newStorage(DType.FLOAT32, baseLayout.numel());
        RowScatter.add(bs, baseLayout, ids, ss.floats(), srcLayout, out.floats());
        return out;
    }

    // ---- linear algebra ------------------------------------------------------------------------

    /**
     * a: (batch..., m, k), b: (batch..., k, n) → contiguous float32 (batch..., m, n). Bfloat16 and
     * float16 operands are widened to float32 scratch first (the span their layout addresses, strides kept).
     */
    @Override
    public Storage matmul(Storage a, Layout aLayout, Storage b, Layout bLayout) {
        try (MatmulOperand x = matmulOperand(a, aLayout); MatmulOperand y = matmulOperand(b, bLayout)) {
            checkMatmulShapes(aLayout, bLayout);
            int rank = aLayout.rank();
            int[] outShape = aLayout.shape().clone();
            outShape[rank - 1] = bLayout.size(rank - 1);
            // the GEMM overwrites C, except for an empty inner dimension, where the product is zeros
            int k = aLayout.size(rank - 1);
            var out = k == 0 ? newStorage(DType.FLOAT32, Layout.numel(outShape)) : newUninitialized(DType.FLOAT32, Layout.numel(outShape));
            BatchedMatmul.matmul(gemm, x.data(), x.layout(), y.data(), y.layout(), out.floats());
            return out;
        }
    }

    // ---- elementwise ---------------------------------------------------------------------------

    /** Contiguous x with a vector kernel for op; anything else goes to the reference. */
    @Override
    public Storage unary(UnaryOp op, Storage x, Layout xLayout) {
        if (!vector || xLayout.numel() == 0 || !VectorElementwise.UNARY.contains(op)) return super.unary(op, x, xLayout);
        if (!xLayout.isContiguous()) {
            Fallbacks.record("unary " + op.opName(), "input is not contiguous");
            return super.unary(op, x, xLayout);
        }
        float[] xs = floats("unary " + op, x, xLayout);
        var out = newUninitialized(DType.FLOAT32, xLayout.numel());
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
        if (pa == null || pb == null) {
            Fallbacks.record("binary " + op, "an operand is neither contiguous nor a row or column broadcast");
            return super.binary(op, a, aLayout, b, bLayout);
        }
        String name = "binary " + op;
        float[] as = floats(name, a, aLayout), bs = floats(name, b, bLayout);
        var out = newUninitialized(DType.FLOAT32, aLayout.numel());
        VectorElementwise.binary(op, as, pa, bs, pb, out.floats(), aLayout.numel());
        return out;
    }

    /**
     * dst += src (autograd's accumulation of gradients) as one vector pass on the team, for a dst
     * contiguous from its storage's start and a src {@link #binary} takes; else the reference.
     */
    @Override
    public void addInto(Storage dst, Layout dstLayout, Storage src, Layout srcLayout) {
        Broadcast ps = vector && Arrays.equals(dstLayout.shape(), srcLayout.shape()) ? Broadcast.of(srcLayout) : null;
        if (ps == null || !dstLayout.isContiguous() || dstLayout.offset() != 0 || dst == src) {
            super.addInto(dst, dstLayout, src, srcLayout);
            return;
        }
        float[] to = floats("addInto", dst, dstLayout), from = floats("addInto", src, srcLayout);
        // in place: each element (each vector) is read before it is written
        VectorElementwise.binary(BinaryOp.ADD, to, Broadcast.of(dstLayout), from, ps, to, dstLayout.numel());
    }

    // ---- reductions ----------------------------------------------------------------------------

    /** SUM/MAX/MIN of a contiguous x over its trailing dims (last, or all) or its leading dims; else the reference. */
    @Override
    public Storage reduce(ReduceOp op, Storage x, Layout xLayout, int[] dims) {
        int rank = xLayout.rank(), n = xLayout.numel();
        if (!vector || op.isArg() || n == 0 || dims.length == 0) return super.reduce(op, x, xLayout, dims);
        boolean trailing = isRun(dims, rank - dims.length), leading = isRun(dims, 0);
        if (!xLayout.isContiguous() || (!trailing && !leading)) {
            Fallbacks.record("reduce " + op, xLayout.isContiguous() ? "dims are neither leading nor trailing" : "input is not contiguous");
            return super.reduce(op, x, xLayout, dims);
        }
        float[] xs = floats("reduce " + op, x, xLayout);
        int reduced = 1;
        for (int d : dims) reduced *= xLayout.size(d);
        int kept = n / reduced;
        var out = newUninitialized(DType.FLOAT32, kept);
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

    // ---- random numbers ------------------------------------------------------------------------

    /** Philox on {@link PhiloxKernel}: parallel over blocks, bit-identical to the reference. */
    @Override
    public Storage random(RandomKind kind, long size, long seed, long offset) {
        int n = heapSize("random", DType.FLOAT32, size);
        var out = newUninitialized(DType.FLOAT32, n);
        PhiloxKernel.fill(kind, out.floats(), n, seed, offset);
        return out;
    }
}
