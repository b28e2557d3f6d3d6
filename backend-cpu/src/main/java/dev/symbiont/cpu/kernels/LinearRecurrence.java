package dev.symbiont.cpu.kernels;

import dev.symbiont.cpu.CpuThreads;

/**
 * The first-order linear recurrence h_t = c_t·h_{t−1} + x_t over contiguous (outer, len, inner)
 * arrays, forward (c_t = a_t, t ascending) or reverse (c_t = a_{t+1}, t descending — the
 * adjoint recurrence of a scan's backward), in two kernels:
 *
 * <ul>
 *   <li>{@link #sequential}: each column (outer, inner) walked once along len, the inner
 *       dimension innermost so a row of columns runs as one loop; parallel over outer and as
 *       few blocks of inner as fill the cores. Work n, depth len.</li>
 *   <li>{@link #chunked}: len cut into chunks scanned independently (carry-in 0) together with
 *       each chunk's coefficient product, the chunk carries combined in order under
 *       (a₁, b₁)∘(a₀, b₀) = (a₁a₀, a₁b₀ + b₁), then each chunk fixed up with its carry: about
 *       2n work, depth len/chunks + chunks. For when outer × inner cannot fill the cores.</li>
 * </ul>
 * Both give the same h up to float32 rounding; {@link #scan} picks one. {@link #adjoint} is a
 * scan's whole backward in one reverse pass. A row of columns is one call of the {@link ScanMath}
 * given (a vector of channels at a time, or its scalar twin); whole rows stream best, so a task
 * walks a whole row unless too few rows fill the cores.
 */
public final class LinearRecurrence {
    private LinearRecurrence() {}

    /** The narrowest block of inner columns one task walks together. */
    private static final int INNER_BLOCK = 64;
    /** Below this length the chunked kernel's second pass does not pay. */
    private static final int MIN_CHUNKED_LENGTH = 1024;

    /** One contiguous (outer, len, inner) operand: its data from {@code offset}. */
    public record Run(float[] data, int offset) {}

    /** The shape of a recurrence: (outer, len, inner), contiguous; reverse runs t from len − 1 down. */
    public record Dims(int outer, int len, int inner, boolean reverse) {
        long columns() { return (long) outer * inner; }
    }

    /**
     * h = the recurrence of (a, x) from h_{−1} = h0 (an (outer, inner) run, or null for 0),
     * written to {@code h} from 0: the sequential kernel unless too few columns fill the cores.
     */
    public static void scan(ScanMath m, Dims d, Run a, Run x, Run h0, float[] h) {
        if (chunks(d)) chunked(m, d, a, x, h0, h, 2 * CpuThreads.parallelism());
        else sequential(m, d, a, x, h0, h);
    }

    /** The recurrence column by column from h_{−1} = 0, each walked once along len. */
    public static void sequential(ScanMath m, Dims d, Run a, Run x, float[] h) { sequential(m, d, a, x, null, h); }

    /** The recurrence column by column from h_{−1} = h0 (or 0 when null), each walked once along len. */
    public static void sequential(ScanMath m, Dims d, Run a, Run x, Run h0, float[] h) {
        columnBlocks(d, (o, i0, i1) -> walk(m, d, a, x, h0, h, o, i0, i1, 0, d.len()));
    }

    /**
     * The backward of the forward scan h = scan(a, x) over (outer, len, inner), from the
     * gradient g of h, in one reverse pass: gh_t = g_t + a_{t+1}·gh_{t+1}, db = gh and
     * da_t = gh_t·h_{t−1} (h_{−1} = h0, or 0 when h0 is null) and dh0 = a_0·gh_0. Any output
     * may be null when its gradient is not wanted; gh itself lives in a row-sized carry, so
     * nothing else of the tensor's size is written. Every element of each output given is written
     * (da_0 = 0 without h0), so they may be unzeroed buffers. With too few columns to fill the cores the
     * chunked kernel computes gh first.
     */
    public static void adjoint(ScanMath m, Dims d, Run a, Run g, Run h, Run h0, float[] da, float[] db, float[] dh0) {
        Dims reverse = new Dims(d.outer(), d.len(), d.inner(), true);
        if (chunks(reverse)) {
            float[] gh = db != null ? db : new float[d.outer() * d.len() * d.inner()];
            chunked(m, reverse, a, g, null, gh, 2 * CpuThreads.parallelism());
            columnBlocks(d, (o, i0, i1) -> {
                if (da != null) previousTimesAdjoint(d, h, h0, gh, da, o, i0, i1);
                if (dh0 != null) {
                    for (int i = i0; i < i1; i++) dh0[o * d.inner() + i] = a.data()[a.offset() + index(d, o, 0, i)] * gh[index(d, o, 0, i)];
                }
            });
        } else {
            columnBlocks(d, (o, i0, i1) -> reverseWalk(m, d, a, g, h, h0, da, db, dh0, o, i0, i1));
        }
    }

    /** Work on the inner columns [i0, i1) of outer o. */
    private interface ColumnBlock {
        void run(int o, int i0, int i1);
    }

    /** Each (outer, block of inner) once, in parallel: as few blocks per row as fill the cores, since a wide block streams whole rows. */
    private static void columnBlocks(Dims d, ColumnBlock body) {
        int wanted = ceilDiv(2 * CpuThreads.parallelism(), Math.max(1, d.outer()));
        int blocksPerRow = Math.max(1, Math.min(wanted, ceilDiv(d.inner(), INNER_BLOCK)));
        int block = ceilDiv(d.inner(), blocksPerRow);
        int grain = Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, d.len() * block));
        Parallel.forRange(d.outer() * blocksPerRow, grain, (from, to) -> {
            for (int item = from; item < to; item++) {
                int o = item / blocksPerRow, i0 = (item % blocksPerRow) * block, i1 = Math.min(d.inner(), i0 + block);
                body.run(o, i0, i1);
            }
        });
    }

    private static boolean chunks(Dims d) {
        return d.outer() * ceilDiv(d.inner(), INNER_BLOCK) < CpuThreads.parallelism() && d.len() >= MIN_CHUNKED_LENGTH;
    }

    /**
     * {@link #adjoint}'s pass over outer o, columns [i0, i1): t from len − 1 down, one row per step,
     * gh_t written to db's row t (the next step's carry) or, without db, to a row-sized carry in place.
     */
    private static void reverseWalk(ScanMath m, Dims d, Run a, Run g, Run h, Run h0, float[] da, float[] db, float[] dh0,
                                    int o, int i0, int i1) {
        int inner = d.inner(), width = i1 - i0, len = d.len();
        float[] gh = db != null ? db : new float[width];
        int col = o * inner + i0, first = index(d, o, 0, 0) + i0, carry = 0;
        for (int t = len - 1; t >= 0; t--) {
            int row = first + t * inner, out = db != null ? row : 0;
            // da_t = gh_t·h_{t−1}; at t = 0 h_{−1} is h0, or 0 (filled below)
            float[] prev = t > 0 ? h.data() : h0 != null ? h0.data() : null;
            int hp = t > 0 ? h.offset() + row - inner : h0 != null ? h0.offset() + col : 0;
            m.adjointRow(g.data(), g.offset() + row, t == len - 1 ? null : a.data(), a.offset() + row + inner, gh, carry,
                    gh, out, prev, hp, prev == null ? null : da, row, width);
            carry = out;
        }
        if (da != null && h0 == null) java.util.Arrays.fill(da, first, first + width, 0f); // da may be an unzeroed buffer
        if (dh0 != null) {
            float[] av = a.data();
            for (int i = 0; i < width; i++) dh0[col + i] = av[a.offset() + first + i] * gh[carry + i];
        }
    }

    /** da_t = gh_t·h_{t−1} over outer o, columns [i0, i1), from a finished gh. */
    private static void previousTimesAdjoint(Dims d, Run h, Run h0, float[] gh, float[] da, int o, int i0, int i1) {
        int inner = d.inner();
        float[] hv = h.data();
        if (h0 != null) {
            for (int i = i0; i < i1; i++) da[index(d, o, 0, i)] = gh[index(d, o, 0, i)] * h0.data()[h0.offset() + o * inner + i];
        } else {
            java.util.Arrays.fill(da, index(d, o, 0, i0), index(d, o, 0, i1), 0f); // h_{−1} = 0; da may be unzeroed
        }
        for (int t = 1; t < d.len(); t++) {
            int row = index(d, o, t, 0), hr = h.offset() + row - inner;
            for (int i = i0; i < i1; i++) da[row + i] = gh[row + i] * hv[hr + i];
        }
    }

    /**
     * The recurrence with len cut into {@code chunks} pieces run in parallel: a local scan and
     * coefficient product per chunk, the carries in order, then the fix-up of every chunk but the first.
     */
    public static void chunked(ScanMath m, Dims d, Run a, Run x, float[] h, int chunks) { chunked(m, d, a, x, null, h, chunks); }

    /** {@link #chunked(ScanMath, Dims, Run, Run, float[], int)} from h_{−1} = h0 (or 0 when null): the first chunk starts from it. */
    public static void chunked(ScanMath m, Dims d, Run a, Run x, Run h0, float[] h, int chunks) {
        int parts = Math.max(1, Math.min(chunks, d.len()));
        int cols = (int) d.columns();
        float[] product = new float[parts * cols], carry = new float[parts * cols]; // small: chunks × columns
        Parallel.forChunks(parts, 1, (unused, from, to) -> {
            for (int c = from; c < to; c++) {
                walk(m, d, a, x, c == 0 ? h0 : null, h, -1, 0, d.inner(), start(d.len(), parts, c), start(d.len(), parts, c + 1));
                if (c > 0) products(d, a, product, c * cols, start(d.len(), parts, c), start(d.len(), parts, c + 1));
            }
        });
        // carry[c] = h at the last position of chunk c: local end + product[c]·carry[c − 1]
        for (int c = 0; c < parts; c++) {
            int end = start(d.len(), parts, c + 1) - 1;
            for (int o = 0; o < d.outer(); o++) {
                for (int i = 0; i < d.inner(); i++) {
                    int col = o * d.inner() + i;
                    float local = h[index(d, o, time(d, end), i)];
                    carry[c * cols + col] = c == 0 ? local : local + product[c * cols + col] * carry[(c - 1) * cols + col];
                }
            }
        }
        Parallel.forChunks(parts - 1, 1, (unused, from, to) -> {
            for (int c = from + 1; c <= to; c++) fixUp(d, a, h, carry, (c - 1) * cols, start(d.len(), parts, c), start(d.len(), parts, c + 1));
        });
    }

    /**
     * The local recurrence over positions [p0, p1) (a position counts steps in the direction of
     * the scan), carry-in h0 (an (outer, inner) run, or null for 0), for outer {@code only}
     * (−1: every outer) and inner [i0, i1).
     */
    private static void walk(ScanMath m, Dims d, Run a, Run x, Run h0, float[] h, int only, int i0, int i1, int p0, int p1) {
        int oFrom = only < 0 ? 0 : only, oTo = only < 0 ? d.outer() : only + 1;
        int inner = d.inner(), step = d.reverse() ? -inner : inner, coef = d.reverse() ? inner : 0, width = i1 - i0;
        for (int o = oFrom; o < oTo; o++) {
            for (int p = p0; p < p1; p++) {
                int row = index(d, o, time(d, p), 0) + i0, xr = x.offset() + row, ca = a.offset() + row + coef;
                if (p == p0 && h0 != null) {
                    m.recurrenceRow(a.data(), ca, h0.data(), h0.offset() + o * inner + i0, x.data(), xr, h, row, width);
                } else if (p == p0) {
                    System.arraycopy(x.data(), xr, h, row, width);
                } else {
                    m.recurrenceRow(a.data(), ca, h, row - step, x.data(), xr, h, row, width);
                }
            }
        }
    }

    /** product[base + col] = Π of the coefficients at positions [p0, p1) (p0 ≥ 1). */
    private static void products(Dims d, Run a, float[] product, int base, int p0, int p1) {
        int inner = d.inner(), coef = d.reverse() ? inner : 0;
        for (int o = 0; o < d.outer(); o++) {
            int col0 = base + o * inner;
            java.util.Arrays.fill(product, col0, col0 + inner, 1f);
            for (int p = p0; p < p1; p++) {
                int ca = a.offset() + index(d, o, time(d, p), 0) + coef;
                for (int i = 0; i < inner; i++) product[col0 + i] *= a.data()[ca + i];
            }
        }
    }

    /** h_t += (Π of the coefficients from the chunk's start to t)·carry for positions [p0, p1). */
    private static void fixUp(Dims d, Run a, float[] h, float[] carry, int carryBase, int p0, int p1) {
        int inner = d.inner(), coef = d.reverse() ? inner : 0;
        float[] running = new float[inner];
        for (int o = 0; o < d.outer(); o++) {
            System.arraycopy(carry, carryBase + o * inner, running, 0, inner);
            for (int p = p0; p < p1; p++) {
                int row = index(d, o, time(d, p), 0), ca = a.offset() + row + coef;
                for (int i = 0; i < inner; i++) {
                    running[i] *= a.data()[ca + i];
                    h[row + i] += running[i];
                }
            }
        }
    }

    private static int time(Dims d, int position) { return d.reverse() ? d.len() - 1 - position : position; }

    private static int index(Dims d, int o, int t, int i) { return (o * d.len() + t) * d.inner() + i; }

    private static int start(int n, int parts, int c) { return (int) ((long) n * c / parts); }

    private static int ceilDiv(int a, int b) { return (a + b - 1) / b; }
}
