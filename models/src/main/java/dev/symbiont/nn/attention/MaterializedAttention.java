package dev.symbiont.nn.attention;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.nn.Dropout;

import java.util.Arrays;

/**
 * Attention with the score matrix written out (Vaswani et al. 2017, eq. 1),
 * softmax(Q Kᵀ · scale + mask) V, with dropout on the probabilities — what the fused
 * scaled-dot-product op cannot do. Grouped-query attention broadcasts instead of repeating:
 * queries are viewed as (batch, kvHeads, group, seq, d) against keys (batch, kvHeads, 1, seq, d),
 * so query head h reads key/value head h / group (repeat_interleave order, as Llama's repeat_kv).
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
        if (causal) {
            try (var scope = Backends.use(q.backend())) {
                scores = scores.add(Masks.causal(sq, sk));
            }
        }
        if (mask != null) scores = scores.add(mask);
        Tensor p = scores.softmax(-1);
        if (dropout != null) p = dropout.forward(p);
        return p.reshape(batch, kvHeads, group, sq, sk).matmul(v.unsqueeze(2)).reshape(batch, heads, sq, d);
    }
}
