package dev.symbiont.core.fused.attention;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

/**
 * The attention family's contract: scaled-dot-product attention and its backward. Semantics
 * (shapes, grouped-query heads, the additive mask, bottom-right causal alignment, empty rows)
 * are {@link Attention}'s; inputs carry no autograd history and may have any strides; q, k, v
 * share one dtype, float32 or a half type computed in float32, and results are float32. A kernel
 * may return its output and gradients in any layout (the CPU one follows its inputs' dim order).
 * {@link MaterializedAttention} is the reference: it writes out the (batch, heads, sq, sk)
 * scores, which a backend's kernel should never hold.
 */
public interface AttentionKernels {

    Family<AttentionKernels> FAMILY = new Family<>("attention", AttentionKernels.class, new MaterializedAttention());

    /**
     * softmax(q·kᵀ·scale + mask [+ causal]) · v with the per-row logsumexp its backward reuses.
     * q: (batch, heads, sq, d); k, v: (batch, kvHeads, sk, d) with heads % kvHeads == 0 (query
     * head h reads kv head h / (heads / kvHeads)); mask: null or an additive float32 mask already
     * expanded to (batch, heads, sq, sk); causal: key j is visible to query i iff j ≤ i + (sk − sq).
     * A row with every key masked outputs zeros and has logsumexp −∞.
     */
    AttentionResult attention(Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal, double scale);

    /**
     * Gradients of {@link #attention} from the output gradient (batch, heads, sq, d), the inputs,
     * and the forward's output and logsumexp: dq (batch, heads, sq, d); dk and dv
     * (batch, kvHeads, sk, d), summed over the query heads that share a kv head.
     */
    AttentionGrads attentionBackward(Tensor gradOut, Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal,
                                     double scale, Tensor out, Tensor logsumexp);

    /** Attention's output (batch, heads, sq, d) and the natural-log logsumexp of each score row (batch, heads, sq). */
    record AttentionResult(Tensor output, Tensor logsumexp) {}

    /** Gradients of attention's q (batch, heads, sq, d), k and v (batch, kvHeads, sk, d). */
    record AttentionGrads(Tensor dq, Tensor dk, Tensor dv) {}
}
