package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.HeapStorage;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.cpu.kernels.FlashAttention;
import dev.symbiont.cpu.kernels.FlashAttentionBackward;
import dev.symbiont.cpu.kernels.HeadRows;
import dev.symbiont.cpu.kernels.TileMath;

import java.util.Arrays;

/**
 * Tiled FlashAttention ({@link FlashAttention}, FlashAttention-2's backward in
 * {@link FlashAttentionBackward}): the (batch, heads, sq, sk) scores are never allocated; P is
 * recomputed block by block from the logsumexp. Runs on the Vector API when the backend's
 * vector kernels are on and on the scalar tile math otherwise, so the memory saving does not
 * depend on the JVM.
 */
public final class CpuAttention implements AttentionKernels {
    private static final AttentionKernels REFERENCE = AttentionKernels.FAMILY.reference();
    private static final String OP = "scaled_dot_product_attention";
    private final CpuTensors io;
    private final TileMath math;

    /** @param vector whether the tiles use the Vector API (else the scalar twin) */
    public CpuAttention(Backend backend, boolean vector) {
        this.io = new CpuTensors(backend);
        this.math = TileMath.of(vector);
    }

    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        if (!ready(OP, q, k, v, mask)) return REFERENCE.attention(q, k, v, mask, causal, scale);
        FlashAttention.Dims dims = dims(q, k);
        HeapStorage out = io.newFloats(q.numel());
        HeapStorage lse = io.newFloats(dims.batch() * dims.heads() * dims.sq());
        FlashAttention.forward(math, dims, headRows(OP, q), headRows(OP, k), headRows(OP, v),
                maskRows(OP, mask, dims), causal, (float) scale, out.floats(), lse.floats());
        return new AttentionResult(Tensor.of(out, q.shape()), Tensor.of(lse, dims.batch(), dims.heads(), dims.sq()));
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
        HeapStorage dq = io.newFloats(q.numel()), dk = io.newFloats(k.numel()), dv = io.newFloats(k.numel());
        HeapStorage.floats(op, logsumexp.storage(), logsumexp.layout());
        float[] lse = io.copyOf(logsumexp); // (batch, heads, sq): small
        FlashAttentionBackward.backward(math, dims, headRows(op, q), headRows(op, k), headRows(op, v),
                maskRows(op, mask, dims), causal, (float) scale, headRows(op, out), headRows(op, gradOut), lse,
                dq.floats(), dk.floats(), dv.floats());
        return new AttentionGrads(Tensor.of(dq, q.shape()), Tensor.of(dk, k.shape()), Tensor.of(dv, k.shape()));
    }

    /** Float32 q, k, v of rank 4 that core's checks would accept, and a mask that broadcasts; otherwise counts a fallback. */
    private static boolean ready(String op, Tensor q, Tensor k, Tensor v, Tensor mask) {
        String reason = null;
        if (q.dim() != 4 || k.dim() != 4 || !Arrays.equals(k.shape(), v.shape())) reason = "q, k, v are not 4-D with k and v alike";
        for (Tensor t : new Tensor[] {q, k, v, mask}) {
            if (reason == null && t != null && t.dtype() != DType.FLOAT32) reason = "an operand is not float32";
        }
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

    /** A 4-D tensor whose rows the kernel reads in place when they are consecutive, else a contiguous scratch copy. */
    private HeadRows headRows(String op, Tensor t) {
        Layout l = t.layout();
        float[] data = HeapStorage.floats(op, t.storage(), l);
        if (l.stride(3) == 1 || l.size(3) <= 1) return new HeadRows(data, l.offset(), l.stride(0), l.stride(1), l.stride(2), 1);
        return HeadRows.contiguous(io.copyOf(t), l.size(1), l.size(2), l.size(3));
    }

    /** The mask broadcast to (batch, heads, sq, sk) and read through its strides (0 on broadcast dims), or null. */
    private static HeadRows maskRows(String op, Tensor mask, FlashAttention.Dims dims) {
        if (mask == null) return null;
        Layout l = mask.layout().expand(dims.batch(), dims.heads(), dims.sq(), dims.sk());
        float[] data = HeapStorage.floats(op, mask.storage(), l);
        return new HeadRows(data, l.offset(), l.stride(0), l.stride(1), l.stride(2), l.stride(3));
    }

    @Override
    public String toString() { return "CpuAttention(" + math + ")"; }
}
