package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

/**
 * The norm family's channel norms of (N, C, *) tensors — batch norm (training and eval, with
 * the running-statistics update), group norm and layer norm over channels — forward and
 * backward, against the reference, over layouts, odd sizes and batch 1.
 */
public abstract class ChannelNormConformance extends ConformanceBase {

    private static Tensor batchNorm(Inputs in, Tensor x, boolean training, boolean affine) {
        int c = x.size(1);
        Tensor w = affine ? in.randn(c) : null, b = affine ? in.randn(c) : null;
        return ChannelNorms.batchNorm(x, null, null, w, b, training, 0.1, 1e-5);
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void batchNormInTrainingMatchesReferenceOnEveryLayout(String layout) {
        assertMatchesReference("batch_norm " + layout, in -> batchNorm(in, in.inLayout(layout, 3, 5, 4, 7).add(1.5), true, true),
                ACCUMULATING);
    }

    @Test
    void batchNormInTrainingMatchesReferenceOnOddSizesBatchOneAndWithoutParameters() {
        assertMatchesReference("batch_norm odd", in -> batchNorm(in, in.randn(3, 7, 5, 9), true, true), ACCUMULATING);
        assertMatchesReference("batch_norm batch 1", in -> batchNorm(in, in.randn(1, 4, 3, 5), true, true), ACCUMULATING);
        assertMatchesReference("batch_norm (N, C)", in -> batchNorm(in, in.randn(6, 5), true, true), ACCUMULATING);
        assertMatchesReference("batch_norm 1-D spatial", in -> batchNorm(in, in.randn(2, 3, 33), true, false), ACCUMULATING);
        assertMatchesReference("batch_norm 1x1", in -> batchNorm(in, in.randn(5, 3, 1, 1), true, true), ACCUMULATING);
    }

    @Test
    void batchNormInEvalModeMatchesReference() {
        assertMatchesReference("batch_norm eval", in -> {
            Tensor x = in.permuted(2, 5, 3, 3);
            return ChannelNorms.batchNorm(x, in.constant(5), in.positive(5).detach(), in.randn(5), in.randn(5), false, 0.1, 1e-5);
        }, ACCUMULATING);
        assertMatchesReference("batch_norm eval no affine", in -> ChannelNorms.batchNorm(in.randn(1, 3, 7, 1), in.constant(3),
                in.positive(3).detach(), null, null, false, 0.1, 1e-5), ACCUMULATING);
    }

    @Test
    void batchNormRunningStatisticsUpdateMatchesReference() {
        assertMatchesReference("batch_norm running stats", in -> {
            Tensor mean = in.constant(4), var = in.positive(4).detach();
            for (int step = 0; step < 3; step++) {
                ChannelNorms.batchNorm(in.constant(3, 4, 5, 2).mul(step + 1.0), mean, var, null, null, true, 0.3, 1e-5);
            }
            return Tensor.cat(List.of(mean, var), 0);
        }, ACCUMULATING);
    }

    @ParameterizedTest(name = "{0} input")
    @ValueSource(strings = {"contiguous", "transposed", "permuted", "strided", "expanded"})
    void groupNormMatchesReferenceOnEveryLayout(String layout) {
        assertMatchesReference("group_norm " + layout, in -> ChannelNorms.groupNorm(in.inLayout(layout, 3, 6, 5, 3).add(0.7), 3,
                in.randn(6), in.randn(6), 1e-5), ACCUMULATING);
    }

    @Test
    void groupNormMatchesReferenceForOneGroupOneChannelPerGroupAndNoParameters() {
        assertMatchesReference("group_norm 1 group", in -> ChannelNorms.groupNorm(in.randn(2, 4, 3, 3), 1, in.randn(4), in.randn(4), 1e-5),
                ACCUMULATING);
        assertMatchesReference("group_norm C groups", in -> ChannelNorms.groupNorm(in.randn(1, 5, 7), 5, in.randn(5), null, 1e-5),
                ACCUMULATING);
        assertMatchesReference("group_norm plain", in -> ChannelNorms.groupNorm(in.randn(3, 6), 2, null, null, 1e-5), ACCUMULATING);
    }

    @Test
    void layerNormOverChannelsMatchesReference() {
        assertMatchesReference("layer_norm over channels", in -> ChannelNorms.layerNormOverChannels(in.randn(2, 7, 3, 5),
                in.randn(7), in.randn(7), 1e-6), ACCUMULATING);
        assertMatchesReference("layer_norm over channels, permuted", in -> ChannelNorms.layerNormOverChannels(in.permuted(1, 6, 4, 3),
                in.randn(6), null, 1e-6), ACCUMULATING);
    }
}
