package dev.symbiont.core.conformance;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Losses;
import org.junit.jupiter.api.Test;

/** Cross-entropy (with ignored targets, over batch and sequence) and MSE, forward and backward, against the reference. */
public abstract class LossConformance extends ConformanceBase {

    private static Tensor targets(Inputs in, int n, int classes, boolean withIgnored) {
        long[] t = new long[n];
        for (int i = 0; i < n; i++) t[i] = withIgnored && i % 3 == 1 ? -100 : in.generator().nextInt(classes);
        return Tensor.fromArray(t, n);
    }

    @Test
    void crossEntropyMatchesReferenceWithAndWithoutIgnoredTargets() {
        assertMatchesReference("cross_entropy", in -> in.randn(13, 7).mul(2.0).crossEntropy(targets(in, 13, 7, false)), ACCUMULATING);
        assertMatchesReference("cross_entropy ignore", in -> in.randn(13, 7).mul(2.0).crossEntropy(targets(in, 13, 7, true)), ACCUMULATING);
        assertMatchesReference("cross_entropy custom ignore", in -> {
            Tensor logits = in.transposed(6, 33);
            long[] t = {0, 32, 5, 5, 3, 32};
            return Losses.crossEntropy(logits, Tensor.fromArray(t, 6), 5);
        }, ACCUMULATING);
    }

    @Test
    void crossEntropyOverBatchAndSequenceMatchesReference() {
        assertMatchesReference("cross_entropy 3-D", in -> {
            Tensor logits = in.randn(2, 5, 11);
            Tensor t = in.indices(11, 2, 5);
            return logits.crossEntropy(t);
        }, ACCUMULATING);
    }

    @Test
    void mseLossMatchesReferenceWithGradientsForBothSides() {
        assertMatchesReference("mse_loss", in -> in.transposed(7, 13).mseLoss(in.strided(7, 13)), ACCUMULATING);
    }
}
