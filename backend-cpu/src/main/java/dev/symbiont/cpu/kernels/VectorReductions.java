package dev.symbiont.cpu.kernels;

import dev.symbiont.core.backend.ReduceOp;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;

import static dev.symbiont.cpu.kernels.VectorConstants.D;
import static dev.symbiont.cpu.kernels.VectorConstants.DL;
import static dev.symbiont.cpu.kernels.VectorConstants.HALF;
import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * SUM, MAX and MIN over contiguous float32 data on the Vector API: over rows (the trailing
 * dims, e.g. the last dim or all of them) and over columns (the leading dims, e.g. a bias
 * gradient's sum over the batch). Also the one-run helpers ({@link #sum}, {@link #max},
 * {@link #dot}) the softmax and norm kernels build on.
 *
 * <p>The SUM primitive widens to double vectors and accumulates in double like the reference,
 * so the sums autograd takes over broadcast dims agree with it to the last bit in all but rare
 * rounding ties. The helpers for the fused kernels use four float accumulators and hand each
 * block of {@value #SUM_BLOCK} elements' total to a double, so long rows lose no more precision
 * than a short one. MAX and MIN propagate NaN like {@link Math#max}.
 */
public final class VectorReductions {
    private VectorReductions() {}

    /** Elements summed in float before the block total moves into a double. */
    static final int SUM_BLOCK = 4096;

    /** out[r] = op over x[off + r·cols, off + (r+1)·cols) for r in [0, rows); cols &gt; 0. */
    public static void reduceRows(ReduceOp op, float[] x, int off, int rows, int cols, float[] out) {
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            for (int r = from; r < to; r++) {
                int base = off + r * cols;
                out[r] = switch (op) {
                    case SUM -> sumWide(x, base, cols);
                    case MAX -> max(x, base, cols);
                    case MIN -> min(x, base, cols);
                    default -> throw new IllegalArgumentException("reduce " + op + ": not a value reduction");
                };
            }
        });
    }

    /** out[j] = op over r of x[off + r·cols + j] for j in [0, cols); rows &gt; 0. */
    public static void reduceColumns(ReduceOp op, float[] x, int off, int rows, int cols, float[] out) {
        int grain = Math.max(L, Parallel.ELEMENT_GRAIN / Math.max(rows, 1));
        Parallel.forRange(cols, grain, (from, to) -> {
            switch (op) {
                case SUM -> sumColumns(x, off, rows, cols, from, to, out);
                case MAX, MIN -> extremeColumns(op == ReduceOp.MAX, x, off, rows, cols, from, to, out);
                default -> throw new IllegalArgumentException("reduce " + op + ": not a value reduction");
            }
        });
    }

    private static void sumColumns(float[] x, int off, int rows, int cols, int from, int to, float[] out) {
        int width = to - from, body = width - width % DL;
        double[] total = new double[width];
        for (int r = 0; r < rows; r++) {
            int base = off + r * cols + from;
            int j = 0;
            for (; j < body; j += DL) DoubleVector.fromArray(D, total, j).add(widen(x, base + j)).intoArray(total, j);
            for (; j < width; j++) total[j] += x[base + j];
        }
        for (int c = 0; c < width; c++) out[from + c] = (float) total[c];
    }

    private static void extremeColumns(boolean max, float[] x, int off, int rows, int cols, int from, int to, float[] out) {
        int width = to - from, body = S.loopBound(width);
        System.arraycopy(x, off + from, out, from, width);
        for (int r = 1; r < rows; r++) {
            int base = off + r * cols + from;
            int j = 0;
            for (; j < body; j += L) {
                FloatVector acc = load(out, from + j), v = load(x, base + j);
                (max ? acc.max(v) : acc.min(v)).intoArray(out, from + j);
            }
            for (; j < width; j++) out[from + j] = max ? Math.max(out[from + j], x[base + j]) : Math.min(out[from + j], x[base + j]);
        }
    }

    // ---- one run ----------------------------------------------------------------------------------

    /** Σ a[off, off + n), accumulated in double. */
    static float sumWide(float[] a, int off, int n) {
        DoubleVector s0 = DoubleVector.zero(D), s1 = s0, s2 = s0, s3 = s0;
        int i = 0;
        for (int b4 = n - n % (4 * DL); i < b4; i += 4 * DL) {
            s0 = s0.add(widen(a, off + i));
            s1 = s1.add(widen(a, off + i + DL));
            s2 = s2.add(widen(a, off + i + 2 * DL));
            s3 = s3.add(widen(a, off + i + 3 * DL));
        }
        for (int b1 = n - n % DL; i < b1; i += DL) s0 = s0.add(widen(a, off + i));
        double total = addLanes(s0.add(s1).add(s2.add(s3)));
        for (; i < n; i++) total += a[off + i];
        return (float) total;
    }

    /** {@link VectorConstants#DL} floats from {@code offset}, widened to doubles. */
    private static DoubleVector widen(float[] a, int offset) {
        return (DoubleVector) FloatVector.fromArray(HALF, a, offset).convertShape(VectorOperators.F2D, D, 0);
    }

    /** Σ a[off, off + n), float accumulators flushed to a double every block. */
    public static float sum(float[] a, int off, int n) {
        double total = 0;
        for (int start = 0; start < n; start += SUM_BLOCK) {
            int len = Math.min(SUM_BLOCK, n - start), base = off + start, i = 0;
            FloatVector s0 = zero(), s1 = zero(), s2 = zero(), s3 = zero();
            for (int b4 = len - len % (4 * L); i < b4; i += 4 * L) {
                s0 = s0.add(load(a, base + i));
                s1 = s1.add(load(a, base + i + L));
                s2 = s2.add(load(a, base + i + 2 * L));
                s3 = s3.add(load(a, base + i + 3 * L));
            }
            for (int b1 = S.loopBound(len); i < b1; i += L) s0 = s0.add(load(a, base + i));
            float part = addLanes(s0.add(s1).add(s2.add(s3)));
            for (; i < len; i++) part += a[base + i];
            total += part;
        }
        return (float) total;
    }

    /** Σ a[ao + i]·b[bo + i] for i in [0, n). */
    public static float dot(float[] a, int ao, float[] b, int bo, int n) {
        double total = 0;
        for (int start = 0; start < n; start += SUM_BLOCK) {
            int len = Math.min(SUM_BLOCK, n - start), i = 0;
            int pa = ao + start, pb = bo + start;
            FloatVector s0 = zero(), s1 = zero();
            for (int b2 = len - len % (2 * L); i < b2; i += 2 * L) {
                s0 = load(a, pa + i).fma(load(b, pb + i), s0);
                s1 = load(a, pa + i + L).fma(load(b, pb + i + L), s1);
            }
            for (int b1 = S.loopBound(len); i < b1; i += L) s0 = load(a, pa + i).fma(load(b, pb + i), s0);
            float part = addLanes(s0.add(s1));
            for (; i < len; i++) part += a[pa + i] * b[pb + i];
            total += part;
        }
        return (float) total;
    }

    /** max a[off, off + n); NaN if any element is NaN; −∞ for n = 0. */
    public static float max(float[] a, int off, int n) {
        FloatVector m0 = FloatVector.broadcast(S, Float.NEGATIVE_INFINITY), m1 = m0;
        int i = 0;
        for (int b2 = n - n % (2 * L); i < b2; i += 2 * L) {
            m0 = m0.max(load(a, off + i));
            m1 = m1.max(load(a, off + i + L));
        }
        for (int b1 = S.loopBound(n); i < b1; i += L) m0 = m0.max(load(a, off + i));
        m0 = m0.max(m1);
        if (m0.test(VectorOperators.IS_NAN).anyTrue()) return Float.NaN;
        float m = m0.reduceLanes(VectorOperators.MAX);
        for (; i < n; i++) m = Math.max(m, a[off + i]);
        return m;
    }

    /** min a[off, off + n); NaN if any element is NaN; +∞ for n = 0. */
    public static float min(float[] a, int off, int n) {
        FloatVector m0 = FloatVector.broadcast(S, Float.POSITIVE_INFINITY), m1 = m0;
        int i = 0;
        for (int b2 = n - n % (2 * L); i < b2; i += 2 * L) {
            m0 = m0.min(load(a, off + i));
            m1 = m1.min(load(a, off + i + L));
        }
        for (int b1 = S.loopBound(n); i < b1; i += L) m0 = m0.min(load(a, off + i));
        m0 = m0.min(m1);
        if (m0.test(VectorOperators.IS_NAN).anyTrue()) return Float.NaN;
        float m = m0.reduceLanes(VectorOperators.MIN);
        for (; i < n; i++) m = Math.min(m, a[off + i]);
        return m;
    }

    // ---- lane sums in a fixed order ---------------------------------------------------------------

    // Butterfly shuffles: lane i swaps with lane i ^ s (levels past the vector's width unused).
    private static final VectorShuffle<Float> F8 = butterfly(S, 8), F4 = butterfly(S, 4), F2 = butterfly(S, 2), F1 = butterfly(S, 1);
    private static final VectorShuffle<Double> D4 = butterfly(D, 4), D2 = butterfly(D, 2), D1 = butterfly(D, 1);

    private static <E> VectorShuffle<E> butterfly(jdk.incubator.vector.VectorSpecies<E> species, int s) {
        int lanes = species.length();
        return VectorShuffle.fromOp(species, i -> s < lanes ? i ^ s : i);
    }

    /**
     * Σ of v's lanes by a fixed butterfly (halves, quarters, ...). {@code reduceLanes(ADD)}
     * leaves the order open, and compiled and interpreted code choose differently, so a sum
     * taken before its method is compiled could differ in the last bit from the same sum taken
     * after — two identical forward passes would not agree. This order is the same everywhere.
     */
    static float addLanes(FloatVector v) {
        if (L > 16) return v.reduceLanes(VectorOperators.ADD);
        if (L >= 16) v = v.add(v.rearrange(F8));
        if (L >= 8) v = v.add(v.rearrange(F4));
        if (L >= 4) v = v.add(v.rearrange(F2));
        if (L >= 2) v = v.add(v.rearrange(F1));
        return v.lane(0);
    }

    /** As {@link #addLanes(FloatVector)}, for doubles. */
    static double addLanes(DoubleVector v) {
        if (DL > 8) return v.reduceLanes(VectorOperators.ADD);
        if (DL >= 8) v = v.add(v.rearrange(D4));
        if (DL >= 4) v = v.add(v.rearrange(D2));
        if (DL >= 2) v = v.add(v.rearrange(D1));
        return v.lane(0);
    }

    static FloatVector load(float[] a, int offset) {
        return FloatVector.fromArray(S, a, offset);
    }

    static FloatVector zero() {
        return FloatVector.zero(S);
    }
}
