package dev.symbiont.nn.attention;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.core.ops.Masks;
import dev.symbiont.nn.Dropout;

import java.util.Arrays;

/**
 * Attention with the score matrix written out (Vaswani et al. 2017, eq. 1),
 * softmax(Q Kᵀ · scale + mask) V, with dropout on the probabilities — what the fused
 * scaled-dot-product op cannot do. Grouped-query attention broadcasts instead of repeating:
 * queries are viewed as (batch, kvHeads, group, seq, d) against keys (batch, kvHeads, 1, seq, d),
 * so query head h reads key/value head h / group (repeat_interleave order, as Llama's repeat_kv).
 * A query whose every key is masked (−∞) attends to nothing and outputs zeros, as the fused op does.
 */
final class MaterializedAttention {
    private MaterializedAttention() {}

    /**
     * @param q       (batch, heads, sq, d)
     * @param k       (batch, kvHeads, sk, d)
     * @param v       (batch, kvHeads, sk, d)
     * @param mask    null or additive float32 broadcastable to (batch, heads, sq, sk)
     * @param causal  bottom-right aligned causal masking ({@link Masks#causal})
     * @param dropout applied to the attention probabilities, or null
     * @return (batch, heads, sq, d)
     */
    static Tensor attend(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale, Dropout dropout) {
        int batch = q.size(0), heads = q.size(1), sq = q.size(2), d = q.size(3);
        int kvHeads = k.size(1), sk = k.size(2), group = heads / kvHeads;
        if (k.dim() != 4 || heads % kvHeads != 0 || k.size(0) != batch || k.size(3) != d || !Arrays.equals(k.shape(), v.shape())) {
            throw new IllegalArgumentException("attention: q " + Arrays.toString(q.shape()) + ", k " + Arrays.toString(k.shape())
                    + ", v " + Arrays.toString(v.shape()) + " do not fit (batch, heads, sq, d) / (batch, kvHeads, sk, d)");
        }
        Tensor scores = q.reshape(batch, kvHeads, group, sq, d).matmul(k.unsqueeze(2).transpose(-2, -1)).mul(scale)
                .reshape(batch, heads, sq, sk);
        if (causal) scores = scores.add(Masks.causal(q.backend(), sq, sk));
        if (mask != null) scores = scores.add(mask);
        Tensor p = causal || mask != null ? maskedSoftmax(scores) : scores.softmax(-1);
        if (dropout != null) p = dropout.forward(p);
        return p.reshape(batch, kvHeads, group, sq, sk).matmul(v.unsqueeze(2)).reshape(batch, heads, sq, d);
    }

    /**
     * softmax over the last dim, with zeros for a row whose every score is −∞ (where a plain
     * softmax gives NaN): such rows are replaced by zeros before it and dropped after it, so
     * they pass no gradient.
     */
    private static Tensor maskedSoftmax(Tensor scores) {
        Tensor empty = scores.amax(new int[] {-1}, true).eq(Double.NEGATIVE_INFINITY);
        Tensor zero = Creation.full(scores.backend(), 0, DType.FLOAT32);
        Tensor p = Tensor.where(empty, zero, scores).softmax(-1);
        return Tensor.where(empty, zero, p);
    }
}
