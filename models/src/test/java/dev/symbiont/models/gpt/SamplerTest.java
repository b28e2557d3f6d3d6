package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class SamplerTest {
    /** Probabilities 0.5, 0.3, 0.15, 0.05 at ids 2, 0, 3, 1. */
    private static final float[] LOGITS = {(float) Math.log(0.3), (float) Math.log(0.05), (float) Math.log(0.5), (float) Math.log(0.15)};

    @Test
    void should_pick_the_argmax_when_greedy_and_the_first_of_ties() {
        assertEquals(2, Sampler.sample(LOGITS, Sampling.greedy(), new Generator(1)));
        assertEquals(1, Sampler.argmax(new float[] {0, 3, 3, -1}));
        assertArrayEquals(new double[] {0, 0, 1, 0}, Sampler.distribution(LOGITS, Sampling.greedy()));
    }

    @Test
    void should_soften_with_temperature() {
        double[] p = Sampler.distribution(LOGITS, Sampling.temperature(1));
        assertArrayEquals(new double[] {0.3, 0.05, 0.5, 0.15}, p, 1e-6);
        double[] hot = Sampler.distribution(LOGITS, Sampling.temperature(2));
        double z = Math.sqrt(0.3) + Math.sqrt(0.05) + Math.sqrt(0.5) + Math.sqrt(0.15);
        assertEquals(Math.sqrt(0.5) / z, hot[2], 1e-6, "p^(1/T), renormalised");
    }

    @Test
    void should_keep_only_the_top_k_tokens() {
        double[] p = Sampler.distribution(LOGITS, Sampling.temperature(1).withTopK(2));
        assertArrayEquals(new double[] {0.3 / 0.8, 0, 0.5 / 0.8, 0}, p, 1e-6);
        assertArrayEquals(new double[] {0.3, 0.05, 0.5, 0.15}, Sampler.distribution(LOGITS, Sampling.temperature(1).withTopK(10)), 1e-6,
                "k past the vocabulary keeps everything");
    }

    @Test
    void should_keep_the_smallest_nucleus_reaching_top_p() {
        assertArrayEquals(new double[] {0, 0, 1, 0}, Sampler.distribution(LOGITS, Sampling.temperature(1).withTopP(0.4)), 1e-6);
        assertArrayEquals(new double[] {0.3 / 0.8, 0, 0.5 / 0.8, 0}, Sampler.distribution(LOGITS, Sampling.temperature(1).withTopP(0.7)), 1e-6);
        assertArrayEquals(new double[] {0.3 / 0.95, 0, 0.5 / 0.95, 0.15 / 0.95}, Sampler.distribution(LOGITS, Sampling.temperature(1).withTopP(0.9)), 1e-6);
        assertArrayEquals(new double[] {0.3 / 0.8, 0, 0.5 / 0.8, 0},
                Sampler.distribution(LOGITS, Sampling.temperature(1).withTopK(2).withTopP(0.9)), 1e-6, "top-p after top-k");
    }

    @Test
    void should_draw_only_from_the_support_with_the_right_frequencies() {
        Sampling s = Sampling.temperature(1).withTopP(0.9);
        Generator g = new Generator(42);
        int[] counts = new int[4];
        int n = 20_000;
        for (int i = 0; i < n; i++) counts[Sampler.sample(LOGITS, s, g)]++;
        assertEquals(0, counts[1], "id 1 lies outside the nucleus");
        double[] p = Sampler.distribution(LOGITS, s);
        for (int i = 0; i < 4; i++) assertEquals(p[i], counts[i] / (double) n, 0.015, "frequency of id " + i);
    }

    @Test
    void should_repeat_a_draw_from_the_same_seed() {
        Sampling s = Sampling.temperature(0.8).withTopK(3);
        int[] a = new int[50], b = new int[50];
        Generator ga = new Generator(7), gb = new Generator(7);
        for (int i = 0; i < 50; i++) {
            a[i] = Sampler.sample(LOGITS, s, ga);
            b[i] = Sampler.sample(LOGITS, s, gb);
        }
        assertArrayEquals(a, b);
    }

    @Test
    void should_reject_bad_settings_and_logits() {
        assertThrows(IllegalArgumentException.class, () -> new Sampling(-1, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Sampling(1, -1, 1));
        var e = assertThrows(IllegalArgumentException.class, () -> new Sampling(1, 0, 0));
        assertTrue(e.getMessage().contains("topP"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Sampling(1, 0, 1.5));
        e = assertThrows(IllegalArgumentException.class, () -> Sampler.sample(new float[] {0, Float.NaN}, Sampling.temperature(1), new Generator(1)));
        assertTrue(e.getMessage().contains("logit 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Sampler.argmax(new float[0]));
    }
}
