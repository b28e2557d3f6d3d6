package dev.symbiont.cpu.kernels;

/**
 * The two classic parallel prefix scans applied to the linear recurrence h_t = a_t·h_{t−1} + x_t,
 * written as the scan of the pairs (a_t, x_t) under the associative operator
 * <pre>
 *   (a₁, b₁) ∘ (a₀, b₀) = (a₁·a₀, a₁·b₀ + b₁)          (a later pair after an earlier one)
 * </pre>
 * whose inclusive prefixes carry h_t in their second half. They exist to measure the work /
 * depth trade the articles describe, so each returns what it spent ({@link Cost}):
 * <ul>
 *   <li>{@link #hillisSteele}: ⌈log₂ n⌉ rounds, round d combining every element with the one
 *       2^d before it — O(log n) depth, O(n log n) work.</li>
 *   <li>{@link #blelloch}: an up-sweep building the tree of partial products and a down-sweep
 *       handing each node its exclusive prefix, over n rounded up to a power of two —
 *       2·log₂ n rounds, O(n) work (about 2n combines).</li>
 * </ul>
 * Every round's combines are independent; a round runs in parallel over the rows (outer) of
 * a contiguous (outer, len, inner) operand. Forward direction only.
 */
public final class TreeScans {
    private TreeScans() {}

    /** Rounds of dependent work (depth) and applications of ∘ per column (work). */
    public record Cost(long steps, long combines) {}

    /** Hillis–Steele's inclusive scan: h into {@code h}; a and x are read, not written. */
    public static Cost hillisSteele(LinearRecurrence.Dims d, LinearRecurrence.Run a, LinearRecurrence.Run x, float[] h) {
        int len = d.len(), inner = d.inner(), n = d.outer() * len * inner;
        float[] pa = new float[n], pb = new float[n], qa = new float[n], qb = new float[n];
        System.arraycopy(a.data(), a.offset(), pa, 0, n);
        System.arraycopy(x.data(), x.offset(), pb, 0, n);
        long steps = 0, combines = 0;
        for (int dist = 1; dist < len; dist *= 2) {
            float[] ca = pa, cb = pb, na = qa, nb = qb;
            int span = dist;
            Parallel.forRange(d.outer(), 1, (from, to) -> {
                for (int o = from; o < to; o++) {
                    int row = o * len * inner;
                    System.arraycopy(ca, row, na, row, span * inner);                // the first 2^d are done
                    System.arraycopy(cb, row, nb, row, span * inner);
                    for (int j = row + span * inner; j < row + len * inner; j++) {
                        int e = j - span * inner;                                  // (a_j, b_j) ∘ (a_e, b_e)
                        na[j] = ca[j] * ca[e];
                        nb[j] = ca[j] * cb[e] + cb[j];
                    }
                }
            });
            pa = na; pb = nb; qa = ca; qb = cb;
            steps++;
            combines += len - dist;
        }
        System.arraycopy(pb, 0, h, 0, n);
        return new Cost(steps, combines);
    }

    /** Blelloch's work-efficient scan (up-sweep, down-sweep, then one combine per element): h into {@code h}. */
    public static Cost blelloch(LinearRecurrence.Dims d, LinearRecurrence.Run a, LinearRecurrence.Run x, float[] h) {
        int len = d.len(), inner = d.inner(), size = Integer.highestOneBit(Math.max(1, len - 1)) * (len > 1 ? 2 : 1);
        long[] counts = new long[2];
        Parallel.forRange(d.outer(), 1, (from, to) -> {
            float[] ta = new float[size * inner], tb = new float[size * inner];
            for (int o = from; o < to; o++) {
                int row = o * len * inner;
                java.util.Arrays.fill(ta, 1f);                                      // padding: the identity (1, 0)
                java.util.Arrays.fill(tb, 0f);
                System.arraycopy(a.data(), a.offset() + row, ta, 0, len * inner);
                System.arraycopy(x.data(), x.offset() + row, tb, 0, len * inner);
                long[] c = sweep(ta, tb, size, inner);
                for (int j = 0; j < len * inner; j++) {                            // inclusive = (a_j, x_j) ∘ exclusive_j
                    h[row + j] = a.data()[a.offset() + row + j] * tb[j] + x.data()[x.offset() + row + j];
                }
                if (o == 0) { counts[0] = c[0] + 1; counts[1] = c[1] + len; }
            }
        });
        return new Cost(counts[0], counts[1]);
    }

    /** The up- and down-sweep over a power-of-two run of pairs, in place: afterwards each holds its exclusive prefix. */
    private static long[] sweep(float[] ta, float[] tb, int size, int inner) {
        long steps = 0, combines = 0;
        for (int dist = 1; dist < size; dist *= 2, steps++) {                       // up: node i = (right ∘ left)
            for (int i = 2 * dist - 1; i < size; i += 2 * dist, combines++) {
                int r = i * inner, l = (i - dist) * inner;
                for (int k = 0; k < inner; k++) {
                    tb[r + k] = ta[r + k] * tb[l + k] + tb[r + k];
                    ta[r + k] = ta[r + k] * ta[l + k];
                }
            }
        }
        int root = (size - 1) * inner;
        for (int k = 0; k < inner; k++) { ta[root + k] = 1f; tb[root + k] = 0f; }
        for (int dist = size / 2; dist >= 1; dist /= 2, steps++) {                  // down: left ← parent, right ← left total ∘ parent
            for (int i = 2 * dist - 1; i < size; i += 2 * dist, combines++) {
                int r = i * inner, l = (i - dist) * inner;
                for (int k = 0; k < inner; k++) {
                    float la = ta[l + k], lb = tb[l + k];
                    ta[l + k] = ta[r + k];
                    tb[l + k] = tb[r + k];
                    tb[r + k] = la * tb[r + k] + lb;
                    ta[r + k] = la * ta[r + k];
                }
            }
        }
        return new long[] {steps, combines};
    }
}
