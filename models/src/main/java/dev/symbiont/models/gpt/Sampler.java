package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;

import java.util.Arrays;

/**
 * Picks a token from one row of logits according to a {@link Sampling}, on the host in double
 * precision, so a seed gives the same tokens on every backend. Order of filters as in Hugging
 * Face's generate: temperature, then top-k, then top-p. Ties rank the lower token id first.
 */
public final class Sampler {
    private Sampler() {}

    /**
     * Draws a token id.
     *
     * @param logits (vocab) scores of the next token
     * @param g      the random source; untouched for greedy decoding
     */
    public static int sample(float[] logits, Sampling s, Generator g) {
        if (s.isGreedy()) return argmax(logits);
        double[] p = distribution(logits, s);
        double u = g.nextDouble(), cumulative = 0;
        int last = -1;
        for (int i = 0; i < p.length; i++) {
            if (p[i] == 0) continue;
            cumulative += p[i];
            last = i;
            if (u < cumulative) return i;
        }
        return last; // u beyond the rounded total
    }

    /**
     * The distribution a token is drawn from: probabilities summing to 1, zero outside the
     * tokens that top-k and top-p keep; one-hot at the argmax for greedy decoding.
     *
     * @param logits (vocab)
     * @return (vocab)
     */
    public static double[] distribution(float[] logits, Sampling s) {
        check(logits);
        int n = logits.length;
        double[] p = new double[n];
        if (s.isGreedy()) {
            p[argmax(logits)] = 1;
            return p;
        }
        // softmax(logits / T), shifted by the max for stability.
        double max = Double.NEGATIVE_INFINITY;
        for (float l : logits) max = Math.max(max, l);
        if (max == Double.NEGATIVE_INFINITY) {
            throw new IllegalArgumentException("Sampler: all " + n + " logits are -Infinity: every token is masked, none can be drawn");
        }
        for (int i = 0; i < n; i++) p[i] = Math.exp((logits[i] - max) / s.temperature());
        int keep = s.topK() == 0 ? n : Math.min(s.topK(), n);
        if (keep == n && s.topP() >= 1) { // no filter: no ranking needed (a large vocabulary makes the ranking the cost of a step)
            normalise(p, null, n);
            return p;
        }
        int[] order = ranking(logits);
        normalise(p, order, keep);
        if (s.topP() < 1) {
            double mass = 0;
            int nucleus = 0;
            while (nucleus < keep && mass < s.topP()) mass += p[order[nucleus++]];
            keep = Math.max(1, nucleus);
            normalise(p, order, keep);
        }
        return p;
    }

    /**
     * Token ids by descending logit, ties by ascending id: one primitive sort of keys that hold
     * the logit's order in the high 32 bits and the id in the low ones.
     */
    static int[] ranking(float[] logits) {
        long[] keys = new long[logits.length];
        for (int i = 0; i < logits.length; i++) {
            int bits = Float.floatToIntBits(logits[i]);
            int ascending = bits ^ ((bits >> 31) & 0x7FFF_FFFF); // orders as the floats do, -0.0 below 0.0
            keys[i] = ((long) ~ascending << 32) | i;             // ~ reverses the order without overflow
        }
        Arrays.sort(keys);
        int[] order = new int[keys.length];
        for (int r = 0; r < keys.length; r++) order[r] = (int) keys[r];
        return order;
    }

    /** Zeroes every token ranked at or after {@code keep} and rescales the rest to sum to 1; a null order keeps all. */
    private static void normalise(double[] p, int[] order, int keep) {
        double total = 0;
        for (int r = 0; r < p.length; r++) {
            int i = order == null ? r : order[r];
            if (r >= keep) p[i] = 0;
            else total += p[i];
        }
        for (int r = 0; r < keep; r++) p[order == null ? r : order[r]] /= total;
    }

    /** The index of the largest logit (the first of equal ones). */
    public static int argmax(float[] logits) {
        check(logits);
        int best = 0;
        for (int i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
        return best;
    }

    private static void check(float[] logits) {
        if (logits.length == 0) throw new IllegalArgumentException("Sampler: empty logits");
        for (int i = 0; i < logits.length; i++) {
            if (Float.isNaN(logits[i]) || logits[i] == Float.POSITIVE_INFINITY) {
                throw new IllegalArgumentException("Sampler: logit " + i + " of " + logits.length + " is " + logits[i]);
            }
        }
    }
}
