package dev.symbiont.core.fused.attention;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.ops.Checks;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;

/**
 * Scaled-dot-product attention, {@code softmax(q·kᵀ·scale + mask) · v}, through the backend's
 * attention family ({@link AttentionKernels}): the reference materialises the scores, a backend
 * may replace it with a tiled kernel that never holds them (the CPU backend's FlashAttention).
 *
 * <p>Shapes: q (batch, heads, sq, d); k and v (batch, kvHeads, sk, d) with heads a multiple of
 * kvHeads (grouped-query attention: query head h reads kv head {@code h / (heads / kvHeads)};
 * kvHeads = heads is ordinary multi-head attention, kvHeads = 1 multi-query); the result is
 * (batch, heads, sq, d). Any strides work, e.g. q as the transpose of a (batch, seq, heads, d) projection.
 *
 * <p>{@code mask} is null or a float32 <em>additive</em> mask broadcastable to
 * (batch, heads, sq, sk): 0 keeps a score, −∞ drops it, other values bias it (ALiBi, relative
 * positions). A key-padding mask is (batch, 1, 1, sk). Masks get no gradient.
 *
 * <p>{@code causal}: query i may attend key j iff {@code j ≤ i + (sk − sq)}, i.e. the causal
 * triangle is aligned to the <em>bottom-right</em> corner of the (sq, sk) score matrix. For
 * sq = sk that is the usual lower triangle; when the queries are the last sq positions of a
 * longer sequence — a KV-cache decode step (sq = 1) or a chunked prefill — every query sees
 * all cached keys and the earlier queries of its own chunk. PyTorch's {@code is_causal} aligns
 * the triangle top-left instead (query 0 sees only key 0 whatever sk is), which is wrong for
 * the cached case and forces callers to build the mask by hand; bottom-right is what
 * FlashAttention-2 and PyTorch's own {@code causal_lower_right} bias do.
 *
 * <p>A query row whose every key is masked (by the mask, by causality when sk &lt; sq, or because
 * sk = 0) outputs zeros rather than NaN, its logsumexp is −∞, and it passes zero gradient to
 * q, k and v. (PyTorch returns NaN there; zeros keep a padded batch's loss finite.)
 *
 * <p>q, k and v are float32, or all three bfloat16 or all three float16; under
 * {@link Autocast} float32 ones are cast to its dtype first (torch's CPU autocast lists SDPA as
 * a lower-precision op), so what backward keeps of them is half the bytes. The scores, the
 * softmax and the products are computed in float32 and the output is float32, as autocast's
 * matmul gives (docs/decisions.md, ADR-071: "Attention results in their inputs' layout; bf16 attention
 * under autocast").
 */
public final class Attention {
    private Attention() {}

    static final String OP = "scaled_dot_product_attention";
    private static final FusedOp<AttentionKernels> SDPA = FusedOp.of(AttentionKernels.FAMILY, OP, OpCategory.ATTENTION);

    /** Attention with the usual scale 1/√d. */
    public static Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal) {
        int d = q.dim() == 4 ? q.size(3) : 1;
        return scaledDotProductAttention(q, k, v, mask, causal, 1.0 / Math.sqrt(Math.max(d, 1)));
    }

    /**
     * softmax(q·kᵀ·scale + mask [+ causal mask]) · v, differentiable w.r.t. q, k and v.
     *
     * @param q      (batch, heads, sq, d)
     * @param k      (batch, kvHeads, sk, d), heads % kvHeads == 0
     * @param v      (batch, kvHeads, sk, d), the shape of k
     * @param mask   null, or an additive float32 mask broadcastable to (batch, heads, sq, sk)
     * @param causal query i attends key j iff j ≤ i + (sk − sq) (bottom-right aligned)
     * @param scale  multiplies the scores before the mask is added
     * @return (batch, heads, sq, d) float32
     * @throws IllegalArgumentException for wrong ranks, disagreeing batch, head_dim or k/v shapes,
     *         heads not divisible by kvHeads, a mask that does not broadcast, q, k, v not all
     *         float32, all bfloat16 or all float16, a mask not float32, or tensors on different backends
     */
    public static Tensor scaledDotProductAttention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale) {
        check(q, k, v, mask);
        DType low = Autocast.lowPrecision();
        if (low != null) { // recorded casts: the gradients flow back to the float32 tensors
            q = q.to(low);
            k = k.to(low);
            v = v.to(low);
        }
        int batch = q.size(0), heads = q.size(1), sq = q.size(2), d = q.size(3), sk = k.size(2);
        // two products (q·kᵀ, p·v) over the (query, key) pairs computed; backward's five (the
        // scores again, dp = dO·vᵀ, dv, dq, dk) cost 2.5 times that
        long flops = 4L * batch * heads * visiblePairs(sq, sk, causal) * d;
        long bytes = FusedOp.bytes(q, k, v, mask, q);
        long backwardFlops = flops * 5 / 2, backwardBytes = FusedOp.bytes(q, k, v, mask, q, q, q, k, v);
        Tensor q2 = q.detach(), k2 = k.detach(), v2 = v.detach();
        Tensor m2 = mask == null ? null : new Tensor(mask.storage(), mask.layout().expand(batch, heads, sq, sk));
        return SDPA.run(q.backend(), flops, bytes,
                kernels -> {
                    AttentionKernels.AttentionResult r = kernels.attention(q2, k2, v2, m2, causal, scale);
                    return new FusedOp.Result<>(r.output(), r);
                },
                (kernels, r, g) -> {
                    Profiler.estimate(backwardFlops, backwardBytes);
                    AttentionKernels.AttentionGrads gr = kernels.attentionBackward(g, q2, k2, v2, m2, causal, scale,
                            r.output(), r.logsumexp());
                    return new Tensor[] {gr.dq(), gr.dk(), gr.dv()};
                }, q, k, v);
    }

    /** The (query, key) pairs attended: all sq·sk, or under causality those with j ≤ i + (sk − sq). */
    static long visiblePairs(int sq, int sk, boolean causal) {
        if (!causal) return (long) sq * sk;
        long pairs = 0;
        for (int i = 0; i < sq; i++) pairs += Math.max(0, Math.min(sk, i + (sk - sq) + 1));
        return pairs;
    }

    /** The argument checks; each message names the op and the shapes. */
    static void check(Tensor q, Tensor k, Tensor v, Tensor mask) {
        Checks.sameBackend(OP, q, k, v, mask);
        Checks.float32(OP, mask);
        DType dt = q.dtype();
        if ((dt != DType.FLOAT32 && dt != DType.BFLOAT16 && dt != DType.FLOAT16) || k.dtype() != dt || v.dtype() != dt) {
            throw new IllegalArgumentException(OP + ": q, k and v must all be float32, all bfloat16 or all float16, got "
                    + dt + ", " + k.dtype() + ", " + v.dtype() + ": q " + shapes(q, k, v));
        }
        if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) {
            throw new IllegalArgumentException(OP + ": q, k and v must be 4-D (batch, heads, seq, head_dim), got q "
                    + shapes(q, k, v));
        }
        int[] qs = q.shape(), ks = k.shape();
        if (!Arrays.equals(ks, v.shape())) {
            throw new IllegalArgumentException(OP + ": k and v shapes differ: q " + shapes(q, k, v));
        }
        if (qs[0] != ks[0]) {
            throw new IllegalArgumentException(OP + ": batch sizes differ (" + qs[0] + " vs " + ks[0] + "): q " + shapes(q, k, v));
        }
        if (qs[3] != ks[3]) {
            throw new IllegalArgumentException(OP + ": head_dim differs (" + qs[3] + " vs " + ks[3] + "): q " + shapes(q, k, v));
        }
        if (ks[1] == 0 ? qs[1] != 0 : qs[1] % ks[1] != 0) {
            throw new IllegalArgumentException(OP + ": query heads (" + qs[1] + ") must be a multiple of kv heads ("
                    + ks[1] + "): q " + shapes(q, k, v));
        }
        if (mask != null) {
            int[] target = {qs[0], qs[1], qs[2], ks[2]};
            int[] ms = mask.shape();
            boolean ok = ms.length <= 4;
            for (int i = 0; ok && i < ms.length; i++) {
                int want = target[4 - ms.length + i];
                ok = ms[i] == want || ms[i] == 1;
            }
            if (!ok) {
                throw new IllegalArgumentException(OP + ": mask of shape " + Arrays.toString(ms)
                        + " does not broadcast to (batch, heads, sq, sk) = " + Arrays.toString(target) + "; q " + shapes(q, k, v));
            }
        }
    }

    private static String shapes(Tensor q, Tensor k, Tensor v) {
        return Arrays.toString(q.shape()) + ", k " + Arrays.toString(k.shape()) + ", v " + Arrays.toString(v.shape());
    }
}
