package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static dev.symbiont.core.fused.attention.AttentionLayouts.rowsLike;

/**
 * The attention family on the GPU: FlashAttention-2 forward and backward ({@code attention.cu}),
 * the (batch, heads, sq, sk) scores never held. q, k, v, the mask and the output gradient are
 * read through their strides (a head-split projection and an expanded mask need no copy); the
 * output and the gradients are float32 in their inputs' dim order
 * ({@link dev.symbiont.core.fused.attention.AttentionLayouts#rowsLike}), so merging the heads
 * back is a view; the logsumexp is contiguous (batch, heads, sq).
 *
 * <p>Bfloat16 and float16 q, k, v (all three of one dtype) run the forward on tensor cores
 * ({@code attention_mma.cu}): S = Q·Kᵀ and O += P·V on {@code mma.sync} with float32 accumulators,
 * the softmax in float32, P rounded to the input dtype for the second product as FlashAttention-2
 * does (so the output differs from the widened float32 computation by up to that rounding, a
 * relative 2⁻⁸ for bfloat16 and 2⁻¹¹ for float16 of the values' magnitude). Their backward runs
 * on tensor cores too ({@code attention_mma_backward.cu}): the float32 backward's passes with every
 * product on {@code mma.sync}, P, dS and the output gradient rounded to the input dtype where they
 * are an operand, the gradients float32 as the float32 path returns them. Mixed dtypes widen the
 * inputs to float32 and run the float32 kernels.
 *
 * <p>head_dim up to 64 runs the 64-wide instance of the kernels, up to {@value #MAX_HEAD_DIM}
 * the 128-wide one; a larger head_dim goes to the reference (a recorded fallback). The backward
 * takes dQ in a second pass over the key tiles rather than atomics: deterministic, no zeroed
 * buffer, for the price of recomputing the scores once more.
 */
final class CudaAttentionKernels implements AttentionKernels {
    static final int TILE = 16, THREADS = 128, MAX_HEAD_DIM = 128;
    /** Query rows per block of the tensor-core forward and dQ, key rows per block of dK/dV (4 warps of 16 rows). */
    static final int MMA_TILE = 64;
    /** Query tiles go on the grid's y dimension. */
    private static final int MAX_GRID_Y = 65_535;
    private static final String OP = "scaled_dot_product_attention", GROUP = "attention", MMA_GROUP = "attention_mma",
            MMA_BACKWARD_GROUP = "attention_mma_backward";
    private static final AttentionKernels REFERENCE = AttentionKernels.FAMILY.reference();

    private final CudaBackend backend;

    CudaAttentionKernels(CudaBackend backend) { this.backend = backend; }

    @Override
    public AttentionResult attention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        if (!fits(OP, q)) return REFERENCE.attention(q, k, v, mask, causal, scale);
        backend.enter();
        boolean tensorCores = tensorCores(q, k, v);
        Inputs in = tensorCores ? Inputs.asIs(q, k, v) : Inputs.widen(q, k, v);
        try {
            int b = q.size(0), h = q.size(1), sq = q.size(2), d = q.size(3);
            Layout outLayout = rowsLike(q.layout());
            CudaStorage out = backend.empty(DType.FLOAT32, outLayout.numel());
            CudaStorage lse = backend.empty(DType.FLOAT32, (long) b * h * sq);
            if (out.size() > 0) {
                KernelArgs args = in.qkv(mask).pointer(out.address()).struct(operand(outLayout), Strided.ALIGN)
                        .pointer(lse.address()).struct(problem(in, causal, scale), 4);
                if (tensorCores) {
                    backend.kernels().launch(MMA_GROUP, "attention_forward_mma_d" + width(d) + halfSuffix(q),
                            Dim3.of(b * h, tiles(OP, sq, MMA_TILE)), Dim3.of(THREADS), 0, args);
                } else {
                    backend.kernels().launch(GROUP, "attention_forward_d" + width(d) + "_f32", queryGrid(in), Dim3.of(THREADS), 0, args);
                }
            }
            return new AttentionResult(new Tensor(out, outLayout), Tensor.of(lse, b, h, sq));
        } finally {
            in.release();
        }
    }

    @Override
    public AttentionGrads attentionBackward(Tensor gradOut, Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal,
                                            double scale, Tensor out, Tensor logsumexp) {
        String op = OP + " backward";
        if (!fits(op, q)) return REFERENCE.attentionBackward(gradOut, q, k, v, mask, causal, scale, out, logsumexp);
        backend.enter();
        int b = q.size(0), h = q.size(1), sq = q.size(2), d = q.size(3), kvh = k.size(1), sk = k.size(2);
        // each gradient in its input's dim order, so that undoing a head split on it is a view
        Layout dqLayout = rowsLike(q.layout()), dkLayout = rowsLike(k.layout()), dvLayout = rowsLike(v.layout());
        CudaStorage dq = backend.empty(DType.FLOAT32, dqLayout.numel());
        if (dq.size() == 0) { // no query reads the keys (sq = 0): their gradients are zero
            return new AttentionGrads(new Tensor(dq, dqLayout), new Tensor(backend.allocate(DType.FLOAT32, dkLayout.numel()), dkLayout),
                    new Tensor(backend.allocate(DType.FLOAT32, dvLayout.numel()), dvLayout));
        }
        CudaStorage dk = backend.empty(DType.FLOAT32, dkLayout.numel()), dv = backend.empty(DType.FLOAT32, dvLayout.numel());
        AttentionGrads grads = new AttentionGrads(new Tensor(dq, dqLayout), new Tensor(dk, dkLayout), new Tensor(dv, dvLayout));
        boolean tensorCores = tensorCores(q, k, v);
        Inputs in = tensorCores ? Inputs.asIs(q, k, v) : Inputs.widen(q, k, v);
        // float32 (a half gradient is widened): the row dots read it, the tensor-core kernels round it as they load it
        Tensor dOut = Inputs.float32(gradOut), o = Inputs.float32(out), lse = logsumexp.contiguous();
        CudaStorage rowDots = backend.empty(DType.FLOAT32, (long) b * h * sq);
        try {
            long rows = rowDots.size();
            backend.kernels().launch(GROUP, "attention_rowdot_f32", rows, KernelArgs.of().pointer(rowDots.address())
                    .pointer(address(dOut)).struct(operand(dOut.layout()), Strided.ALIGN)
                    .pointer(address(o)).struct(operand(o.layout()), Strided.ALIGN).i32(h).i32(sq).i32(d).i64(rows));
            byte[] problem = problem(in, causal, scale);
            if (dk.size() > 0) {
                KernelArgs kv = in.qkv(mask).pointer(address(dOut)).struct(operand(dOut.layout()), Strided.ALIGN)
                        .pointer(address(lse)).pointer(rowDots.address())
                        .pointer(dk.address()).struct(operand(dkLayout), Strided.ALIGN)
                        .pointer(dv.address()).struct(operand(dvLayout), Strided.ALIGN).struct(problem, 4);
                if (tensorCores) {
                    backend.kernels().launch(MMA_BACKWARD_GROUP, "attention_backward_kv_mma_d" + width(d) + halfSuffix(q),
                            Dim3.of(b * kvh, tiles(op, sk, MMA_TILE)), Dim3.of(THREADS), 0, kv);
                } else {
                    backend.kernels().launch(GROUP, "attention_backward_kv_d" + width(d) + "_f32",
                            Dim3.of(b * kvh, tiles(op, sk)), Dim3.of(THREADS), 0, kv);
                }
            }
            KernelArgs qArgs = in.qkv(mask).pointer(address(dOut)).struct(operand(dOut.layout()), Strided.ALIGN)
                    .pointer(address(lse)).pointer(rowDots.address())
                    .pointer(dq.address()).struct(operand(dqLayout), Strided.ALIGN).struct(problem, 4);
            if (tensorCores) {
                backend.kernels().launch(MMA_BACKWARD_GROUP, "attention_backward_q_mma_d" + width(d) + halfSuffix(q),
                        Dim3.of(b * h, tiles(op, sq, MMA_TILE)), Dim3.of(THREADS), 0, qArgs);
            } else {
                backend.kernels().launch(GROUP, "attention_backward_q_d" + width(d) + "_f32", queryGrid(in), Dim3.of(THREADS), 0, qArgs);
            }
            return grads;
        } finally {
            rowDots.release();
            in.release();
            releaseIfCopy(dOut, gradOut);
            releaseIfCopy(o, out);
            releaseIfCopy(lse, logsumexp);
        }
    }

    /** Whether the kernels take this head_dim; otherwise records the fallback. */
    private static boolean fits(String op, Tensor q) {
        if (q.size(3) <= MAX_HEAD_DIM) return true;
        Fallbacks.record(op, "head_dim " + q.size(3) + " is above the kernels' " + MAX_HEAD_DIM);
        return false;
    }

    /** The kernels' compile-time head_dim bound for {@code d}: 64 or 128. */
    private static int width(int d) { return d <= 64 ? 64 : 128; }

    /** A block per (batch · head, query tile). */
    private static Dim3 queryGrid(Inputs in) {
        return Dim3.of(in.q.size(0) * in.q.size(1), tiles(OP, in.q.size(2)));
    }

    private static int tiles(String op, int length) { return tiles(op, length, TILE); }

    private static int tiles(String op, int length, int tile) {
        int tiles = (length + tile - 1) / tile;
        if (tiles > MAX_GRID_Y) {
            throw new IllegalArgumentException(op + ": sequence length " + length + " needs " + tiles
                    + " tiles of " + tile + ", more than the grid's " + MAX_GRID_Y);
        }
        return tiles;
    }

    /** Whether q, k, v are all bfloat16 or all float16: the tensor-core kernels read them as they are. */
    private static boolean tensorCores(Tensor q, Tensor k, Tensor v) {
        DType t = q.dtype();
        return (t == DType.BFLOAT16 || t == DType.FLOAT16) && k.dtype() == t && v.dtype() == t;
    }

    /** The tensor-core kernels' dtype suffix. */
    private static String halfSuffix(Tensor q) { return q.dtype() == DType.BFLOAT16 ? "_bf16" : "_f16"; }

    /** The kernels' {@code Problem}: heads, kvHeads, sq, sk, d, causal (ints), scale (float). */
    private static byte[] problem(Inputs in, boolean causal, double scale) {
        ByteBuffer buf = ByteBuffer.allocate(28).order(ByteOrder.LITTLE_ENDIAN);
        buf.putInt(in.q.size(1)).putInt(in.k.size(1)).putInt(in.q.size(2)).putInt(in.k.size(2)).putInt(in.q.size(3))
                .putInt(causal ? 1 : 0).putFloat((float) scale);
        return buf.array();
    }

    /** The kernels' {@code Operand}: the (batch, head, seq, dim) strides of a 4-D layout. */
    static byte[] operand(Layout l) {
        if (l.rank() != 4) throw new IllegalArgumentException(OP + ": expected a 4-D operand, got " + Arrays.toString(l.shape()));
        ByteBuffer buf = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 4; i++) buf.putLong(l.stride(i));
        return buf.array();
    }

    /** The device address of {@code t}'s first element. */
    private static long address(Tensor t) {
        return CudaBackend.storage(t.storage()).address(t.layout().offset());
    }

    private static void releaseIfCopy(Tensor used, Tensor original) {
        if (used.storage() != original.storage()) used.storage().release();
    }

    /** q, k, v as the kernels read them: as they are, or float32 (half inputs widened into temporaries released after the launches). */
    private record Inputs(Tensor q, Tensor k, Tensor v, Tensor qIn, Tensor kIn, Tensor vIn) {
        static Inputs asIs(Tensor q, Tensor k, Tensor v) { return new Inputs(q, k, v, q, k, v); }

        static Inputs widen(Tensor q, Tensor k, Tensor v) {
            return new Inputs(float32(q), float32(k), float32(v), q, k, v);
        }

        static Tensor float32(Tensor t) { return t.dtype() == DType.FLOAT32 ? t : t.to(DType.FLOAT32); }

        /** The arguments q, k, v and the mask (strides 0 where it broadcasts; null: none). */
        KernelArgs qkv(Tensor mask) {
            KernelArgs args = KernelArgs.of().pointer(address(q)).struct(operand(q.layout()), Strided.ALIGN)
                    .pointer(address(k)).struct(operand(k.layout()), Strided.ALIGN)
                    .pointer(address(v)).struct(operand(v.layout()), Strided.ALIGN);
            return mask == null ? args.pointer(0).struct(new byte[32], Strided.ALIGN)
                    : args.pointer(address(mask)).struct(operand(mask.layout()), Strided.ALIGN);
        }

        void release() {
            releaseIfCopy(q, qIn);
            releaseIfCopy(k, kIn);
            releaseIfCopy(v, vIn);
        }
    }
}
