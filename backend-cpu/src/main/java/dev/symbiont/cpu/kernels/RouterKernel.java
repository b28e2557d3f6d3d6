package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * The top-k router of a mixture of experts, one pass over each token's row: the E logits as dot
 * products of the row with the gate's rows (E is small: 8 for Mixtral, so a GEMM would pack the
 * whole input for eight columns), softmax and logsumexp over them, the k most probable experts
 * by selection, their weights. Backward is one pass too: the weights' and probabilities'
 * gradients through softmax into dh, and dx = dh·Wg from the same row; dWg = dhᵀ·x is left to
 * the caller's GEMM. The composition it replaces ran a dozen small ops, each with its own pass
 * and output, and three matmuls of eight columns.
 *
 * <p>{@code vector} false runs the scalar twin (the backend without the Vector API, and the
 * tests' comparison); the two differ only in the dot products' summation order. The vector dots
 * add their lanes in a fixed tree ({@link VectorReductions#addLanes}), not with {@code reduceLanes},
 * whose order may differ between a method's interpreted and compiled runs (the same input would
 * route by other bits on a later call). Rows are split over the team; every row is written by
 * one thread, so results do not depend on timing.
 */
public final class RouterKernel {
    private RouterKernel() {}

    /** Work per chunk of rows, in multiply-adds. */
    private static final int GRAIN = Parallel.ELEMENT_GRAIN;

    /**
     * For each token t: logits[t, e] = x[t]·w[e] (w (E, d) contiguous), probs = softmax(logits),
     * lse[t] = logsumexp(logits), ids[t, ·] the k largest probs (NaN highest, ties to the lower
     * index, largest first), weights[t, ·] those probs, divided by their sum when {@code renormalize}.
     */
    public static void forward(boolean vector, Rows x, float[] w, int tokens, int d, int experts, int k, boolean renormalize,
                               float[] logits, float[] probs, long[] ids, float[] weights, float[] lse) {
        Parallel.forRange(tokens, rowGrain(d, experts), (from, to) -> {
            boolean[] taken = new boolean[experts];
            for (int t = from; t < to; t++) {
                int h = t * experts;
                for (int e = 0; e < experts; e++) logits[h + e] = 0;
                dots(vector, x.data(), x.start(t), w, d, experts, logits, h);
                lse[t] = softmax(logits, probs, h, experts);
                select(probs, h, experts, k, renormalize, taken, ids, weights, t * k);
            }
        });
    }

    /**
     * dh[t] = p ⊙ (dp − Σ p ⊙ dp) + p · dlse[t] + dLogits[t], where dp = dProbs[t] plus the
     * weights' gradient scattered to their experts (through the renormalisation when there was
     * one); then dx[t] = Σ_e dh[t, e] · w[e]. Null gradients count as zeros.
     */
    public static void backward(boolean vector, float[] dLogits, float[] dProbs, float[] dWeights, float[] dLse,
                                float[] probs, long[] ids, int tokens, int d, int experts, int k, boolean renormalize,
                                float[] w, float[] dh, float[] dx) {
        Parallel.forRange(tokens, rowGrain(d, experts), (from, to) -> {
            float[] dp = new float[experts];
            for (int t = from; t < to; t++) {
                int h = t * experts;
                for (int e = 0; e < experts; e++) dp[e] = dProbs == null ? 0 : dProbs[h + e];
                if (dWeights != null) scatterWeights(dWeights, probs, h, ids, t * k, k, renormalize, dp);
                float pdp = 0;
                for (int e = 0; e < experts; e++) pdp += probs[h + e] * dp[e];
                float g = dLse == null ? 0 : dLse[t];
                for (int e = 0; e < experts; e++) {
                    float p = probs[h + e];
                    dh[h + e] = p * (dp[e] - pdp) + p * g + (dLogits == null ? 0 : dLogits[h + e]);
                }
                combineRows(vector, dh, h, w, d, experts, dx, t * d);
            }
        });
    }

    /** Rows per chunk: a chunk does at least {@link #GRAIN} multiply-adds. */
    private static int rowGrain(int d, int experts) {
        return Math.max(1, GRAIN / Math.max(1, d * experts));
    }

    /** out[o + e] += x[xo..xo+d)·w[e·d..) for every expert, four experts per sweep of the row. */
    private static void dots(boolean vector, float[] x, int xo, float[] w, int d, int experts, float[] out, int o) {
        int j0 = 0;
        if (vector) {
            int bound = S.loopBound(d), e = 0;
            for (; e + 4 <= experts; e += 4) {
                int w0 = e * d, w1 = w0 + d, w2 = w1 + d, w3 = w2 + d;
                FloatVector a0 = FloatVector.zero(S), a1 = a0, a2 = a0, a3 = a0;
                for (int j = 0; j < bound; j += L) {
                    FloatVector v = FloatVector.fromArray(S, x, xo + j);
                    a0 = v.fma(FloatVector.fromArray(S, w, w0 + j), a0);
                    a1 = v.fma(FloatVector.fromArray(S, w, w1 + j), a1);
                    a2 = v.fma(FloatVector.fromArray(S, w, w2 + j), a2);
                    a3 = v.fma(FloatVector.fromArray(S, w, w3 + j), a3);
                }
                out[o + e] += VectorReductions.addLanes(a0);
                out[o + e + 1] += VectorReductions.addLanes(a1);
                out[o + e + 2] += VectorReductions.addLanes(a2);
                out[o + e + 3] += VectorReductions.addLanes(a3);
            }
            for (; e < experts; e++) {
                FloatVector a = FloatVector.zero(S);
                for (int j = 0; j < bound; j += L) {
                    a = FloatVector.fromArray(S, x, xo + j).fma(FloatVector.fromArray(S, w, e * d + j), a);
                }
                out[o + e] += VectorReductions.addLanes(a);
            }
            j0 = bound;
        }
        for (int e = 0; e < experts; e++) {
            float s = 0;
            for (int j = j0, we = e * d; j < d; j++) s += x[xo + j] * w[we + j];
            out[o + e] += s;
        }
    }

    /** probs[h..h+E) = softmax(logits[h..h+E)); returns logsumexp. */
    private static float softmax(float[] logits, float[] probs, int h, int experts) {
        float max = Float.NEGATIVE_INFINITY;
        for (int e = 0; e < experts; e++) max = Math.max(max, logits[h + e]);
        float sum = 0;
        for (int e = 0; e < experts; e++) {
            float p = (float) Math.exp(logits[h + e] - max);
            probs[h + e] = p;
            sum += p;
        }
        float inv = 1f / sum;
        for (int e = 0; e < experts; e++) probs[h + e] *= inv;
        return max + (float) Math.log(sum);
    }

    /** The k largest of probs[h..h+E) into ids and weights at {@code o}, by selection (k is small). */
    private static void select(float[] probs, int h, int experts, int k, boolean renormalize, boolean[] taken,
                               long[] ids, float[] weights, int o) {
        java.util.Arrays.fill(taken, false);
        float sum = 0;
        for (int i = 0; i < k; i++) {
            int best = -1;
            for (int e = 0; e < experts; e++) {
                if (!taken[e] && (best < 0 || greater(probs[h + e], probs[h + best]))) best = e;
            }
            taken[best] = true;
            ids[o + i] = best;
            weights[o + i] = probs[h + best];
            sum += probs[h + best];
        }
        if (renormalize) for (int i = 0; i < k; i++) weights[o + i] /= sum;
    }

    /** a ranks above b: NaN highest, as the stable {@code topk}'s order; equal values do not. */
    private static boolean greater(float a, float b) {
        if (Float.isNaN(a) || Float.isNaN(b)) return Float.isNaN(a) && !Float.isNaN(b);
        return a > b;
    }

    /** dp[ids] += the weights' gradient, through w = v / Σv when renormalised: dv = (dw − Σ dw ⊙ w) / Σv. */
    private static void scatterWeights(float[] dWeights, float[] probs, int h, long[] ids, int o, int k, boolean renormalize,
                                       float[] dp) {
        if (!renormalize) {
            for (int i = 0; i < k; i++) dp[(int) ids[o + i]] += dWeights[o + i];
            return;
        }
        float sum = 0;
        for (int i = 0; i < k; i++) sum += probs[h + (int) ids[o + i]];
        float dww = 0;
        for (int i = 0; i < k; i++) dww += dWeights[o + i] * (probs[h + (int) ids[o + i]] / sum);
        for (int i = 0; i < k; i++) dp[(int) ids[o + i]] += (dWeights[o + i] - dww) / sum;
    }

    /** dx[o..o+d) = Σ_e dh[h + e] · w[e·d..). */
    private static void combineRows(boolean vector, float[] dh, int h, float[] w, int d, int experts, float[] dx, int o) {
        int j = 0;
        if (vector) {
            for (int bound = S.loopBound(d); j < bound; j += L) {
                FloatVector acc = FloatVector.zero(S);
                for (int e = 0; e < experts; e++) acc = FloatVector.fromArray(S, w, e * d + j).fma(FloatVector.broadcast(S, dh[h + e]), acc);
                acc.intoArray(dx, o + j);
            }
        }
        for (; j < d; j++) {
            float acc = 0;
            for (int e = 0; e < experts; e++) acc = Math.fma(w[e * d + j], dh[h + e], acc);
            dx[o + j] = acc;
        }
    }
}
