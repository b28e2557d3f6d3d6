package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;

import java.util.Comparator;
import java.util.stream.IntStream;

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
        for (int i = 0; i < n; i++) p[i] = Math.exp((logits[i] - max) / s.temperature());
        Integer[] order = IntStream.range(0, n).boxed().sorted(Comparator.comparingDouble((Integer i) -> -logits[i])).toArray(Integer[]::new);
        int keep = s.topK() == 0 ? n : Math.min(s.topK(), n);
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

    /** Zeroes every token ranked at or after {@code keep} and rescales the rest to sum to 1. */
    private static void normalise(double[] p, Integer[] order, int keep) {
        double total = 0;
        for (int r = 0; r < order.length; r++) {
            if (r >= keep) p[order[r]] = 0;
            else total += p[order[r]];
        }
        for (int r = 0; r < keep; r++) p[order[r]] /= total;
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
