package dev.symbiont.core.fused.attention;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Scaled-dot-product attention, forward and the gradients of q, k and v, against the
 * materialised reference: odd lengths, sq ≠ sk, grouped-query heads, masks and transposed views.
 */
public abstract class AttentionConformance extends ConformanceBase {

    /** Sums over keys and head_dim in float32: a bit more room than a plain softmax. */
    private static final Tolerance ATTENTION = new Tolerance(1e-4, 1e-4);
    /**
     * Half inputs: a backend may round P to the input dtype for P·V (tensor cores, as
     * FlashAttention-2 does), off by bfloat16's unit roundoff 2⁻⁸ times max|v| (about 4 here).
     */
    private static final Tolerance HALF_ATTENTION = new Tolerance(1e-4, 1e-2);
    /**
     * Their gradients: a backend may also round P, dS and the output gradient to the input dtype
     * where they are tensor-core operands, as FlashAttention-2 does, and its row dots
     * D = rowsum(dO ∘ O) take the forward's O of rounded P: an element is off by a few units of
     * 2⁻⁸ times the magnitude of its sum's terms (1 to 5 here; 0.014 seen).
     */
    private static final Tolerance HALF_ATTENTION_GRADIENTS = new Tolerance(1e-2, 2e-2);

    @ParameterizedTest(name = "heads {0}/{1}, sq {2}, sk {3}, d {4}, causal {5}")
    @CsvSource({
            "2, 2, 5, 5, 8, false",
            "2, 2, 7, 7, 8, true",
            "4, 2, 3, 11, 16, true",
            "3, 1, 9, 4, 5, true",
            "2, 2, 1, 33, 32, true",
            "4, 4, 70, 67, 64, false",
            "4, 2, 67, 70, 64, true"})
    void attentionMatchesReferenceForwardAndBackward(int heads, int kvHeads, int sq, int sk, int d, boolean causal) {
        assertMatchesReference("sdpa", in -> Tensor.scaledDotProductAttention(
                in.randn(2, heads, sq, d), in.randn(2, kvHeads, sk, d), in.randn(2, kvHeads, sk, d), null, causal), ATTENTION);
    }

    @ParameterizedTest(name = "causal {0}")
    @CsvSource({"false", "true"})
    void attentionWithAdditiveAndKeyPaddingMasksMatchesReference(boolean causal) {
        assertMatchesReference("sdpa bias", in -> Tensor.scaledDotProductAttention(
                in.randn(2, 4, 9, 8), in.randn(2, 2, 13, 8), in.randn(2, 2, 13, 8), in.constant(2, 1, 9, 13), causal), ATTENTION);
        assertMatchesReference("sdpa key padding", in -> {
            Tensor pad = in.mask(2, 1, 1, 13).where(Tensor.scalar(Float.NEGATIVE_INFINITY), Tensor.scalar(0));
            return Tensor.scaledDotProductAttention(in.randn(2, 4, 9, 8), in.randn(2, 2, 13, 8), in.randn(2, 2, 13, 8), pad, causal);
        }, ATTENTION);
    }

    @ParameterizedTest(name = "causal {0}")
    @CsvSource({"false", "true"})
    void attentionOnTransposedProjectionsMatchesReference(boolean causal) {
        assertMatchesReference("sdpa transposed", in -> Tensor.scaledDotProductAttention(
                in.randn(2, 10, 4, 16).transpose(1, 2), in.randn(2, 12, 2, 16).transpose(1, 2),
                in.randn(2, 2, 16, 12).transpose(2, 3), null, causal, 0.3), ATTENTION);
    }

    @ParameterizedTest(name = "causal {0}")
    @CsvSource({"false", "true"})
    void attentionOnSplitHeadViewsMatchesReference(boolean causal) {
        assertMatchesReference("sdpa split heads", in -> Tensor.scaledDotProductAttention(
                splitHeads(in.randn(2, 9, 4 * 8), 4), splitHeads(in.randn(2, 11, 2 * 8), 2),
                splitHeads(in.randn(2, 11, 2 * 8), 2), null, causal), ATTENTION);
    }

    @ParameterizedTest(name = "causal {0}")
    @CsvSource({"false", "true"})
    void attentionOnBf16InputsMatchesReference(boolean causal) {
        assertMatchesReference("sdpa bf16", in -> Tensor.scaledDotProductAttention(
                in.randn(2, 4, 9, 8).to(DType.BFLOAT16), in.randn(2, 2, 13, 8).to(DType.BFLOAT16),
                in.randn(2, 2, 13, 8).to(DType.BFLOAT16), null, causal), HALF_ATTENTION, HALF_ATTENTION_GRADIENTS);
    }

    /** (batch, seq, n·d) → (batch, n, seq, d), as MultiHeadAttention splits its projections. */
    private static Tensor splitHeads(Tensor t, int n) {
        return t.reshape(t.size(0), t.size(1), n, t.size(2) / n).transpose(1, 2);
    }
}
