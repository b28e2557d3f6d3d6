package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.cpu.kernels.FlashAttention;
import dev.symbiont.cpu.kernels.FlashAttentionBackward;
import dev.symbiont.cpu.kernels.FloatScratch;
import dev.symbiont.cpu.kernels.HeadRows;
import dev.symbiont.cpu.kernels.StridedCopy;
import dev.symbiont.cpu.kernels.TileMath;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.symbiont.core.fused.attention.AttentionLayouts.rowsLike;

/**
 * Tiled FlashAttention ({@link FlashAttention}, FlashAttention-2's backward in
 * {@link FlashAttentionBackward}): the (batch, heads, sq, sk) scores are never allocated; P is
 * recomputed block by block from the logsumexp. Runs on the Vector API when the backend's
 * vector kernels are on and on the scalar tile math otherwise, so the memory saving does not
 * depend on the JVM.
 *
 * <p>q, k, v are read through their strides (a head-split projection needs no copy), and the
 * output and the gradients are written in the dim order of q, k and v, so that merging the
 * heads back is a view. Bfloat16 or float16 q, k, v (autocast) are widened to float32 for the
 * call and computed in float32; the output and gradients are float32.
 */
public final class CpuAttention implements AttentionKernels {
    private static final AttentionKernels REFERENCE = AttentionKernels.FAMILY.reference();
    private static final String OP = "scaled_dot_product_attention";
    private final Backend backend;
    private final CpuTensors io;
    private final TileMath math;

    /** @param vector whether the tiles use the Vector API (else the scalar twin) */
    public CpuAttention(Backend backend, boolean vector) {
        this.backend = backend;
        this.io = new CpuTensors(backend);
        this.math = TileMath.of(vector);
    }

    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        if (!ready(OP, q, k, v, mask)) return REFERENCE.attention(q, k, v, mask, causal, scale);
        FlashAttention.Dims dims = dims(q, k);
        Layout outLayout = rowsLike(q.layout());
        HeapStorage out = io.emptyFloats(q.numel()); // every row written
        HeapStorage lse = io.newFloats(dims.batch() * dims.heads() * dims.sq());
        try (CallBuffers w = new CallBuffers()) {
            FlashAttention.forward(math, dims, headRows(OP, q, w), headRows(OP, k, w), headRows(OP, v, w),
                    maskRows(OP, mask, dims), causal, (float) scale, HeadRows.of(out.floats(), outLayout), lse.floats(), w);
        }
        return new AttentionResult(new Tensor(out, outLayout), Tensor.of(lse, dims.batch(), dims.heads(), dims.sq()));
    }

    @Override
    public AttentionGrads attentionBackward(Tensor gradOut, Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal,
                                            double scale, Tensor out, Tensor logsumexp) {
        String op = OP + " backward";
        int[] lseShape = {q.size(0), q.size(1), q.size(2)};
        if (!ready(op, q, k, v, mask) || !savedReady(op, gradOut, out, logsumexp, q.shape(), lseShape)) {
            return REFERENCE.attentionBackward(gradOut, q, k, v, mask, causal, scale, out, logsumexp);
        }
        FlashAttention.Dims dims = dims(q, k);
        // Each gradient in its input's dim order, so that undoing a head split on it is a view.
        Layout dqLayout = rowsLike(q.layout()), dkLayout = rowsLike(k.layout()), dvLayout = rowsLike(v.layout());
        HeapStorage dq = io.newFloats(q.numel()); // accumulated into: zero
        HeapStorage dk = io.emptyFloats(k.numel()), dv = io.emptyFloats(k.numel()); // every row stored once
        HeapStorage.floats(op, logsumexp.storage(), logsumexp.layout());
        float[] lse = io.copyOf(logsumexp); // (batch, heads, sq): small
        try (CallBuffers w = new CallBuffers()) {
            FlashAttentionBackward.backward(math, dims, headRows(op, q, w), headRows(op, k, w), headRows(op, v, w),
                    maskRows(op, mask, dims), causal, (float) scale, headRows(op, out, w), headRows(op, gradOut, w), lse,
                    HeadRows.of(dq.floats(), dqLayout), HeadRows.of(dk.floats(), dkLayout), HeadRows.of(dv.floats(), dvLayout), w);
        }
        return new AttentionGrads(new Tensor(dq, dqLayout), new Tensor(dk, dkLayout), new Tensor(dv, dvLayout));
    }

    /**
     * The float32 buffers of one call — copies of low-precision inputs, the kernel's scratch —
     * tracked, taken from the pool and released when the call returns. The kernel's tasks take
     * scratch concurrently.
     */
    private final class CallBuffers implements FloatScratch, AutoCloseable {
        private final List<Storage> buffers = new ArrayList<>(4);

        synchronized Storage keep(Storage s) {
            buffers.add(s);
            return s;
        }

        @Override
        public float[] empty(int n) { return HeapStorage.of(keep(io.emptyFloats(n))).floats(); }

        @Override
        public float[] zeros(int n) { return HeapStorage.of(keep(io.newFloats(n))).floats(); }

        @Override
        public synchronized void close() { buffers.forEach(Storage::release); }
    }

    /**
     * q, k, v of rank 4 that core's checks would accept — one dtype, float32 or a half type the
     * tiles widen to float32 — and a float32 mask that broadcasts; otherwise counts a fallback.
     */
    private static boolean ready(String op, Tensor q, Tensor k, Tensor v, Tensor mask) {
        String reason = null;
        if (q.dim() != 4 || k.dim() != 4 || !Arrays.equals(k.shape(), v.shape())) reason = "q, k, v are not 4-D with k and v alike";
        if (reason == null && (!q.dtype().isFloating() || k.dtype() != q.dtype() || v.dtype() != q.dtype()
                || (q.dtype() != DType.FLOAT32 && !StridedCopy.converts(q.dtype(), DType.FLOAT32)))) {
            reason = "q, k, v are not one float32, bfloat16 or float16 dtype";
        }
        if (reason == null && mask != null && mask.dtype() != DType.FLOAT32) reason = "the mask is not float32";
        if (reason == null && (q.size(0) != k.size(0) || q.size(3) != k.size(3) || k.size(1) == 0 || q.size(1) % k.size(1) != 0)) {
            reason = "batch, head_dim or head counts do not match";
        }
        if (reason == null && mask != null && !broadcasts(mask, q, k)) reason = "mask does not broadcast";
        if (reason == null) return true;
        Fallbacks.record(op, reason);
        return false;
    }

    private static boolean broadcasts(Tensor mask, Tensor q, Tensor k) {
        try {
            mask.layout().expand(q.size(0), q.size(1), q.size(2), k.size(2));
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The output, its gradient and the logsumexp have the forward's shapes and are float32; otherwise counts a fallback. */
    private static boolean savedReady(String op, Tensor gradOut, Tensor out, Tensor logsumexp, int[] qShape, int[] lseShape) {
        if (Arrays.equals(gradOut.shape(), qShape) && Arrays.equals(out.shape(), qShape) && Arrays.equals(logsumexp.shape(), lseShape)
                && gradOut.dtype() == DType.FLOAT32 && out.dtype() == DType.FLOAT32 && logsumexp.dtype() == DType.FLOAT32) {
            return true;
        }
        Fallbacks.record(op, "output, gradient or logsumexp is not the forward's float32 shape");
        return false;
    }

    private static FlashAttention.Dims dims(Tensor q, Tensor k) {
        return new FlashAttention.Dims(q.size(0), q.size(1), k.size(1), q.size(2), k.size(2), q.size(3));
    }

    /**
     * A 4-D tensor whose rows the kernel reads in place when it is float32 with consecutive rows
     * (any row and head strides, e.g. a head-split projection); a low-precision one widened to
     * float32 for the call; else a contiguous scratch copy.
     */
    private HeadRows headRows(String op, Tensor t, CallBuffers buffers) {
        Layout l = t.layout();
        if (t.dtype() != DType.FLOAT32) {
            HeapStorage.checked(op, t.storage(), l);
            float[] wide = HeapStorage.of(buffers.keep(backend.cast(t.storage(), l, DType.FLOAT32))).floats();
            return HeadRows.contiguous(wide, l.size(1), l.size(2), l.size(3));
        }
        float[] data = HeapStorage.floats(op, t.storage(), l);
        if (l.stride(3) == 1 || l.size(3) <= 1) return HeadRows.of(data, l);
        return HeadRows.contiguous(io.copyOf(t), l.size(1), l.size(2), l.size(3));
    }

    /** The mask broadcast to (batch, heads, sq, sk) and read through its strides (0 on broadcast dims), or null. */
    private static HeadRows maskRows(String op, Tensor mask, FlashAttention.Dims dims) {
        if (mask == null) return null;
        Layout l = mask.layout().expand(dims.batch(), dims.heads(), dims.sq(), dims.sk());
        return HeadRows.of(HeapStorage.floats(op, mask.storage(), l), l);
    }

    @Override
    public String toString() { return "CpuAttention(" + math + ")"; }
}
