package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static dev.symbiont.core.autograd.GradCheck.check;
import static dev.symbiont.core.autograd.GradCheck.randn;
import static dev.symbiont.core.autograd.GradCheck.uniform;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Batch norm, group norm and layer norm over channels: gradients against finite differences,
 * values against the formulas written out as loops, and the errors bad input gets.
 */
class ChannelNormsTest {
    private final Generator g = new Generator(12);

    // ---- gradients --------------------------------------------------------------------------------

    @Test
    void batchNormTrainingGradientsForInputWeightAndBiasMatchFiniteDifferences() {
        check("batch_norm training", in -> ChannelNorms.batchNorm(in.get(0), null, null, in.get(1), in.get(2), true, 0.1, 1e-5),
                randn(g, 1, 2, 3, 2, 2), randn(g, 1, 3), randn(g, 1, 3));
        check("batch_norm training (N, C)", in -> ChannelNorms.batchNorm(in.get(0), null, null, null, null, true, 0.1, 1e-5),
                randn(g, 1, 5, 2));
        check("batch_norm training batch 1", in -> ChannelNorms.batchNorm(in.get(0), null, null, in.get(1), null, true, 0.1, 1e-5),
                randn(g, 1, 1, 2, 5), randn(g, 1, 2));
    }

    @Test
    void batchNormEvalGradientsAreThoseOfTheAffineMap() {
        Tensor mean = Tensor.randn(g, 3), var = Tensor.rand(g, 3).add(0.5);
        check("batch_norm eval", in -> ChannelNorms.batchNorm(in.get(0), mean, var, in.get(1), in.get(2), false, 0.1, 1e-5),
                randn(g, 1, 2, 3, 4), randn(g, 1, 3), randn(g, 1, 3));
    }

    @Test
    void groupNormGradientsForInputWeightAndBiasMatchFiniteDifferences() {
        check("group_norm", in -> ChannelNorms.groupNorm(in.get(0), 2, in.get(1), in.get(2), 1e-5),
                randn(g, 1, 2, 4, 3), randn(g, 1, 4), randn(g, 1, 4));
        check("group_norm instance", in -> ChannelNorms.groupNorm(in.get(0), 3, null, null, 1e-5), randn(g, 1, 2, 3, 2, 2));
    }

    @Test
    void layerNormOverChannelsGradientsMatchFiniteDifferences() {
        check("layer_norm over channels", in -> ChannelNorms.layerNormOverChannels(in.get(0), in.get(1), in.get(2), 1e-6),
                randn(g, 1, 2, 3, 2, 2), randn(g, 1, 3), randn(g, 1, 3));
    }

    // ---- values against the formulas ----------------------------------------------------------------

    @Test
    void batchNormTrainingNormalisesWithBiasedVarianceAndUpdatesRunningStatsWithUnbiasedVariance() {
        int n = 3, c = 2, l = 4;
        float[] x = GradCheck.randn(g, 2, n, c, l).values();
        float[] rm = {0.5f, -1f}, rv = {2f, 0.25f};
        Tensor runMean = Tensor.fromArray(rm.clone(), c), runVar = Tensor.fromArray(rv.clone(), c);
        float[] w = {1.5f, -0.5f}, b = {0.1f, 0.2f};
        float[] y = ChannelNorms.batchNorm(Tensor.fromArray(x, n, c, l), runMean, runVar, Tensor.fromArray(w, c),
                Tensor.fromArray(b, c), true, 0.1, 1e-5).toFloatArray();
        for (int ch = 0; ch < c; ch++) {
            double sum = 0, sq = 0;
            for (int i = 0; i < n; i++) for (int j = 0; j < l; j++) sum += x[(i * c + ch) * l + j];
            double mean = sum / (n * l);
            for (int i = 0; i < n; i++) for (int j = 0; j < l; j++) sq += Math.pow(x[(i * c + ch) * l + j] - mean, 2);
            double biased = sq / (n * l), unbiased = sq / (n * l - 1);
            for (int i = 0; i < n; i++) for (int j = 0; j < l; j++) {
                int at = (i * c + ch) * l + j;
                assertEquals((x[at] - mean) / Math.sqrt(biased + 1e-5) * w[ch] + b[ch], y[at], 1e-5, "y at " + at);
            }
            assertEquals(0.9 * rm[ch] + 0.1 * mean, runMean.toFloatArray()[ch], 1e-6, "running_mean " + ch);
            assertEquals(0.9 * rv[ch] + 0.1 * unbiased, runVar.toFloatArray()[ch], 1e-5, "running_var " + ch);
        }
    }

    @Test
    void batchNormEvalUsesTheRunningStatisticsAndLeavesThemAlone() {
        int n = 2, c = 3, l = 2;
        float[] x = GradCheck.randn(g, 1, n, c, l).values();
        float[] rm = {0.3f, -0.2f, 1f}, rv = {0.5f, 2f, 1.5f};
        Tensor runMean = Tensor.fromArray(rm.clone(), c), runVar = Tensor.fromArray(rv.clone(), c);
        float[] y = ChannelNorms.batchNorm(Tensor.fromArray(x, n, c, l), runMean, runVar, null, null, false, 0.1, 1e-3).toFloatArray();
        for (int at = 0; at < x.length; at++) {
            int ch = (at / l) % c;
            assertEquals((x[at] - rm[ch]) / Math.sqrt(rv[ch] + 1e-3), y[at], 1e-5, "y at " + at);
        }
        org.junit.jupiter.api.Assertions.assertArrayEquals(rm, runMean.toFloatArray());
        org.junit.jupiter.api.Assertions.assertArrayEquals(rv, runVar.toFloatArray());
    }

    @Test
    void groupNormNormalisesEachGroupOfEachSampleThenScalesPerChannel() {
        int n = 2, c = 4, l = 3, groups = 2, per = c / groups;
        float[] x = uniform(g, -2, 3, n, c, l).values(), w = {1f, 2f, -1f, 0.5f}, b = {0f, 1f, -1f, 0.25f};
        float[] y = ChannelNorms.groupNorm(Tensor.fromArray(x, n, c, l), groups, Tensor.fromArray(w, c), Tensor.fromArray(b, c), 1e-5)
                .toFloatArray();
        for (int i = 0; i < n; i++) for (int gr = 0; gr < groups; gr++) {
            int from = (i * c + gr * per) * l, to = from + per * l;
            double sum = 0, sq = 0;
            for (int at = from; at < to; at++) sum += x[at];
            double mean = sum / (per * l);
            for (int at = from; at < to; at++) sq += Math.pow(x[at] - mean, 2);
            double rstd = 1 / Math.sqrt(sq / (per * l) + 1e-5);
            for (int at = from; at < to; at++) {
                int ch = (at / l) % c;
                assertEquals((x[at] - mean) * rstd * w[ch] + b[ch], y[at], 1e-5, "y at " + at);
            }
        }
    }

    @Test
    void layerNormOverChannelsNormalisesEachPositionOverC() {
        int n = 2, c = 3, l = 4;
        float[] x = randn(g, 2, n, c, l).values();
        float[] y = ChannelNorms.layerNormOverChannels(Tensor.fromArray(x, n, c, l), null, null, 1e-6).toFloatArray();
        for (int i = 0; i < n; i++) for (int j = 0; j < l; j++) {
            double sum = 0, sq = 0;
            for (int ch = 0; ch < c; ch++) sum += x[(i * c + ch) * l + j];
            double mean = sum / c;
            for (int ch = 0; ch < c; ch++) sq += Math.pow(x[(i * c + ch) * l + j] - mean, 2);
            for (int ch = 0; ch < c; ch++) {
                int at = (i * c + ch) * l + j;
                assertEquals((x[at] - mean) / Math.sqrt(sq / c + 1e-6), y[at], 1e-5, "y at " + at);
            }
        }
    }

    // ---- bad input ----------------------------------------------------------------------------------

    private static void throwsMentioning(Executable call, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' does not mention '" + f + "'");
    }

    private Tensor randnTensor(int... shape) { return Tensor.randn(g, shape); }

    @Test
    void batchNormRejectsParametersAndStatisticsWhoseChannelsDisagreeWithTheInput() {
        Tensor x = randnTensor(2, 4, 3, 3);
        throwsMentioning(() -> ChannelNorms.batchNorm(x, null, null, randnTensor(5), null, true, 0.1, 1e-5),
                "batch_norm", "weight", "[5]", "[2, 4, 3, 3]");
        throwsMentioning(() -> ChannelNorms.batchNorm(x, Tensor.zeros(3), Tensor.ones(3), null, null, false, 0.1, 1e-5),
                "batch_norm", "running_mean", "[3]", "[2, 4, 3, 3]");
        throwsMentioning(() -> ChannelNorms.batchNorm(x, Tensor.zeros(4), null, null, null, true, 0.1, 1e-5),
                "batch_norm", "both");
    }

    @Test
    void batchNormInTrainingRejectsOneValuePerChannelAsPyTorchDoes() {
        throwsMentioning(() -> ChannelNorms.batchNorm(randnTensor(1, 4), null, null, null, null, true, 0.1, 1e-5),
                "batch_norm", "expected more than 1 value per channel when training", "[1, 4]");
        throwsMentioning(() -> ChannelNorms.batchNorm(randnTensor(1, 4, 1, 1), null, null, null, null, true, 0.1, 1e-5),
                "more than 1 value per channel", "[1, 4, 1, 1]");
        // In eval mode a single value per channel is fine.
        assertEquals(4, ChannelNorms.batchNorm(randnTensor(1, 4), Tensor.zeros(4), Tensor.ones(4), null, null, false, 0.1, 1e-5).numel());
    }

    @Test
    void batchNormRejectsInputsWithoutChannelsAndEvalWithoutRunningStatistics() {
        throwsMentioning(() -> ChannelNorms.batchNorm(randnTensor(6), null, null, null, null, true, 0.1, 1e-5),
                "batch_norm", "(N, C, *)", "[6]");
        throwsMentioning(() -> ChannelNorms.batchNorm(randnTensor(2, 3), null, null, null, null, false, 0.1, 1e-5),
                "batch_norm", "running_mean and running_var are needed");
    }

    @Test
    void groupNormRejectsGroupsThatDoNotDivideTheChannels() {
        throwsMentioning(() -> ChannelNorms.groupNorm(randnTensor(2, 4, 3), 3, null, null, 1e-5),
                "group_norm", "divisible by num_groups", "[2, 4, 3]", "num_groups=3");
        throwsMentioning(() -> ChannelNorms.groupNorm(randnTensor(2, 4, 3), 0, null, null, 1e-5), "group_norm", "num_groups=0");
        throwsMentioning(() -> ChannelNorms.groupNorm(randnTensor(2, 4, 3), 2, randnTensor(2), null, 1e-5),
                "group_norm", "weight", "[2]", "[2, 4, 3]");
    }
}
