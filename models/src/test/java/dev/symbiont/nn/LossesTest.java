package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class LossesTest {
    @Test
    void should_smooth_labels_as_the_mixture_of_nll_and_the_uniform_target() {
        float[] logits = {2, -1, 0.5f, 0, 1, 3, -2, 0.1f, 0.3f};
        long[] targets = {0, 2, -100};
        double eps = 0.1, total = 0;
        for (int r = 0; r < 2; r++) {
            double max = Double.NEGATIVE_INFINITY, sum = 0;
            for (int c = 0; c < 3; c++) max = Math.max(max, logits[r * 3 + c]);
            for (int c = 0; c < 3; c++) sum += Math.exp(logits[r * 3 + c] - max);
            double lse = max + Math.log(sum);
            double nll = lse - logits[r * 3 + (int) targets[r]];
            double uniform = 0;
            for (int c = 0; c < 3; c++) uniform += (lse - logits[r * 3 + c]) / 3;
            total += (1 - eps) * nll + eps * uniform;
        }
        Tensor loss = Losses.crossEntropy(Tensor.fromArray(logits, 3, 3), Tensor.fromArray(targets, 3), -100, eps);
        assertEquals(total / 2, loss.item(), 1e-5);
        Tensor plain = Losses.crossEntropy(Tensor.fromArray(logits, 3, 3), Tensor.fromArray(targets, 3), -100, 0);
        assertEquals(Tensor.fromArray(logits, 3, 3).crossEntropy(Tensor.fromArray(targets, 3)).item(), plain.item());
    }

    @Test
    void should_give_nan_when_every_target_is_ignored_and_one_hot_rows_for_ids() {
        Tensor logits = Tensor.fromArray(new float[] {1, 2, 3, 4}, 2, 2);
        assertTrue(Float.isNaN(logits.crossEntropy(Tensor.fromArray(new long[] {-100, -100}, 2)).item()));
        assertArrayEquals(new float[] {0, 1, 0, 0, 0, 1, 1, 0, 0},
                Tensor.fromArray(new int[] {1, 2, 0}, 3).oneHot(3).toFloatArray());
        assertArrayEquals(new int[] {2, 1, 4}, Tensor.fromArray(new long[] {3, 0}, 2, 1).oneHot(4).shape());
    }

    @Test
    void should_differentiate_label_smoothed_cross_entropy() {
        Tensor targets = Tensor.fromArray(new long[] {1, 0, 3, -100}, 4);
        GradCheck.check("cross_entropy(label_smoothing)", in -> Losses.crossEntropy(in.get(0), targets, -100, 0.2),
                GradCheck.randn(new Generator(1), 1, 4, 5));
    }

    @Test
    void should_compute_bce_with_logits_stably() {
        float[] x = {-3, -0.5f, 0, 2, 100, -100};
        float[] y = {0, 1, 0.5f, 1, 0, 1};
        double expected = 0;
        for (int i = 0; i < x.length; i++) {
            expected += Math.max(x[i], 0) - x[i] * y[i] + Math.log1p(Math.exp(-Math.abs(x[i])));
        }
        float loss = Losses.bceWithLogits(Tensor.fromArray(x), Tensor.fromArray(y)).item();
        assertEquals(expected / x.length, loss, 1e-4);
        assertTrue(Float.isFinite(loss));
        var e = assertThrows(IllegalArgumentException.class, () -> Losses.bceWithLogits(Tensor.zeros(2), Tensor.zeros(3)));
        assertTrue(e.getMessage().contains("[2]") && e.getMessage().contains("[3]"));
    }

    @Test
    void should_differentiate_bce_with_logits() {
        Tensor targets = Tensor.fromArray(new float[] {0, 1, 0.3f, 1, 0, 0.9f}, 2, 3);
        GradCheck.check("bce_with_logits", in -> Losses.bceWithLogits(in.get(0), targets), GradCheck.randn(new Generator(2), 2, 2, 3));
    }

    @Test
    void should_reject_label_smoothing_outside_zero_one() {
        assertThrows(IllegalArgumentException.class,
                () -> Losses.crossEntropy(Tensor.zeros(2, 3), Tensor.fromArray(new long[] {0, 1}), -100, 1.5));
    }
}
