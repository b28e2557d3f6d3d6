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
    void top_p_keeps_the_lower_ids_of_tied_tokens_p_one_keeps_all_and_a_tiny_p_keeps_the_argmax() {
        float[] ties = {0, 2, 2, 2, 2, 0};                              // ids 1..4 share the mass; 0 and 5 hold e^-2 each
        double[] two = Sampler.distribution(ties, Sampling.temperature(1).withTopP(0.4));
        assertArrayEquals(new double[] {0, 0.5, 0.5, 0, 0, 0}, two, 1e-12, "the smallest set reaching 0.4 is two of the four tied ids, the lower two");
        double[] all = Sampler.distribution(ties, Sampling.temperature(1).withTopP(1));
        for (double v : all) assertTrue(v > 0, "p = 1 keeps every token: " + java.util.Arrays.toString(all));
        assertArrayEquals(new double[] {0, 1, 0, 0, 0, 0}, Sampler.distribution(ties, Sampling.temperature(1).withTopP(1e-9)), 1e-12,
                "a tiny p keeps one token, the first of the most likely");
        double[] exact = Sampler.distribution(new float[] {0, 0, 0, 0}, Sampling.temperature(1).withTopP(0.5));
        assertArrayEquals(new double[] {0.5, 0.5, 0, 0}, exact, 1e-12, "a set whose mass equals p reaches it");
        for (int seed = 0; seed < 50; seed++) {
            assertEquals(1, Sampler.sample(ties, Sampling.temperature(1).withTopP(1e-9), new Generator(seed)), "tiny p samples the argmax");
        }
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
        e = assertThrows(IllegalArgumentException.class, () -> new Sampling(1, 0, 1, 0));
        assertTrue(e.getMessage().contains("repetitionPenalty must be finite and > 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Sampling.greedy().withRepetitionPenalty(Double.POSITIVE_INFINITY));
        e = assertThrows(IllegalArgumentException.class, () -> Sampler.sample(new float[] {0, Float.NaN}, Sampling.temperature(1), new Generator(1)));
        assertTrue(e.getMessage().contains("logit 1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Sampler.argmax(new float[0]));
    }

    @Test
    void should_refuse_logits_that_mask_every_token_instead_of_returning_nan() {
        float[] masked = {Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY};
        for (Sampling s : new Sampling[] {Sampling.temperature(1), Sampling.temperature(1).withTopP(0.5), Sampling.temperature(0.7).withTopK(2)}) {
            var e = assertThrows(IllegalArgumentException.class, () -> Sampler.distribution(masked, s));
            assertTrue(e.getMessage().contains("all 3 logits are -Infinity"), e.getMessage());
        }
    }

    /** The ranking top-k and top-p keep: descending logit, ties (and 0.0 above -0.0) by ascending id, as a boxed comparator sorts. */
    @Test
    void should_rank_tokens_as_a_descending_stable_sort_of_the_logits() {
        var rng = new java.util.Random(3);
        for (int trial = 0; trial < 200; trial++) {
            float[] logits = new float[1 + rng.nextInt(40)];
            float[] pool = {0f, -0f, 1f, -1f, 3.5f, Float.NEGATIVE_INFINITY, Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE};
            for (int i = 0; i < logits.length; i++) logits[i] = rng.nextBoolean() ? pool[rng.nextInt(pool.length)] : (float) rng.nextGaussian();
            int[] expected = java.util.stream.IntStream.range(0, logits.length).boxed()
                    .sorted(java.util.Comparator.comparingDouble((Integer i) -> -logits[i]).thenComparingInt(i -> i))
                    .mapToInt(Integer::intValue).toArray();
            assertArrayEquals(expected, Sampler.ranking(logits), java.util.Arrays.toString(logits));
        }
    }

    @Test
    void should_sample_a_large_vocabulary_without_ranking_it_when_no_filter_applies() {
        float[] logits = new float[1 << 20];
        logits[12345] = 30;
        double[] p = Sampler.distribution(logits, Sampling.temperature(1));
        assertEquals(1 / (1 + ((1 << 20) - 1) * Math.exp(-30)), p[12345], 1e-9, "a million sums of 1e-13 round in the last bits");
        assertEquals(12345, Sampler.sample(logits, Sampling.temperature(1).withTopP(0.5), new Generator(1)));
    }
}
