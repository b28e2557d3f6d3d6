package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorShuffle;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * The Vector-API runs of {@link WinogradTransforms}: L tiles of a tile row at a time, with the
 * tiles' stride-2 columns split into even and odd lanes (and zipped back for the output) by
 * two-vector shuffles; the scalar loops there finish each row and are this class's twin.
 */
final class VectorWinogradTiles {
    private VectorWinogradTiles() {}

    /** Lanes 0, 2, 4, … of two consecutive vectors; ODD takes 1, 3, 5, … (indices ≥ L pick from the second). */
    private static final VectorShuffle<Float> EVEN = VectorShuffle.fromOp(S, i -> 2 * i);
    private static final VectorShuffle<Float> ODD = VectorShuffle.fromOp(S, i -> 2 * i + 1);
    /** a0 b0 a1 b1 … from the first halves of a and b; ZIP_HI from the second halves. */
    private static final VectorShuffle<Float> ZIP_LO = VectorShuffle.fromOp(S, i -> (i % 2) * L + i / 2);
    private static final VectorShuffle<Float> ZIP_HI = VectorShuffle.fromOp(S, i -> (i % 2) * L + L / 2 + i / 2);

    /**
     * V for all tw tiles of four input rows (starting at s0 … s3 in xd, −1 for a padding row):
     * Bᵀ down the rows' {@code copied} floats, straight into the strip's rows 4…7 from column
     * pw (the padded columns there must be zero), then B across each tile's columns.
     */
    static void input(float[] xd, int s0, int s1, int s2, int s3, int pw, int copied, float[] strip, int wp, int tw,
                      float[] v, int dst, int plane) {
        int e = 4 * wp, at = e + pw;
        if (copied >= L) {
            for (int j = 0; j < copied; j += L) downRun(xd, s0, s1, s2, s3, Math.min(j, copied - L), strip, at, wp, L);
        } else if (copied > 0) {                                        // a row shorter than a vector: one masked run
            downRun(xd, s0, s1, s2, s3, 0, strip, at, wp, copied);
        }
        if (tw < L) {
            acrossRun(strip, e, wp, 0, v, dst, plane, tw);
            return;
        }
        for (int tx = 0; tx < tw; tx += L) acrossRun(strip, e, wp, Math.min(tx, tw - L), v, dst, plane, L);
    }

    /**
     * Bᵀ down columns [j, j + L) of the four rows into the strip at {@code at + j}; a last run may
     * overlap (same values again). A short row reads and writes only its first {@code lanes} lanes.
     */
    private static void downRun(float[] xd, int s0, int s1, int s2, int s3, int j, float[] strip, int at, int wp,
                                int lanes) {
        FloatVector b0 = row(xd, s0, j, lanes), b1 = row(xd, s1, j, lanes), b2 = row(xd, s2, j, lanes), b3 = row(xd, s3, j, lanes);
        store(b0.sub(b2), strip, at + j, lanes);
        store(b1.add(b2), strip, at + wp + j, lanes);
        store(b2.sub(b1), strip, at + 2 * wp + j, lanes);
        store(b1.sub(b3), strip, at + 3 * wp + j, lanes);
    }

    private static FloatVector row(float[] xd, int start, int j, int lanes) {
        if (start < 0) return FloatVector.zero(S);
        return lanes >= L ? FloatVector.fromArray(S, xd, start + j) : FloatVector.fromArray(S, xd, start + j, S.indexInRange(0, lanes));
    }

    /** x's first {@code lanes} lanes (all L when lanes ≥ L) into a[at …]. */
    private static void store(FloatVector x, float[] a, int at, int lanes) {
        if (lanes >= L) {
            x.intoArray(a, at);
        } else {
            x.intoArray(a, at, S.indexInRange(0, lanes));
        }
    }

    /**
     * B across the columns of tiles [tx, tx + L): columns 2tx … 2tx + 2L + 1 lie inside wp, or (a row
     * of fewer than L tiles, its first {@code lanes}) inside the strip's slack. A row's last run may start
     * before the previous run's end; the tiles they share get the same values again.
     */
    private static void acrossRun(float[] strip, int e, int wp, int tx, float[] v, int dst, int plane, int lanes) {
        for (int i = 0; i < 4; i++) {
            int src = e + i * wp + 2 * tx, p = 4 * i * plane + dst + tx;
            FloatVector a = FloatVector.fromArray(S, strip, src), b = FloatVector.fromArray(S, strip, src + L);
            FloatVector a2 = FloatVector.fromArray(S, strip, src + 2), b2 = FloatVector.fromArray(S, strip, src + 2 + L);
            FloatVector d0 = a.rearrange(EVEN, b), d1 = a.rearrange(ODD, b);
            FloatVector d2 = a2.rearrange(EVEN, b2), d3 = a2.rearrange(ODD, b2);
            store(d0.sub(d2), v, p, lanes);
            store(d1.add(d2), v, p + plane, lanes);
            store(d2.sub(d1), v, p + 2 * plane, lanes);
            store(d1.sub(d3), v, p + 3 * plane, lanes);
        }
    }

    /**
     * Tiles at the start of a row that the vector runs cover: every tile with both output columns
     * inside the map when there are at least L of them (the last run overlapping the one before),
     * else none. (Rows of fewer tiles stay with the scalar loops here: masked runs over them, 16
     * masked loads or stores each, made the output and grad-output transforms of 14 × 14 and 7 × 7
     * maps 2–4× slower, where the input transform's masked runs made it 2–2.7× faster.)
     */
    static int fullTiles(int tw, int ow) {
        int full = Math.min(tw, ow / 2);
        return full >= L ? full : 0;
    }

    /**
     * Aᵀ M A + b for the row's first {@link #fullTiles} tiles; returns how many it wrote.
     *
     * @see WinogradTransforms#outputRow
     */
    static int output(float[] m, int src, int plane, int tw, float[] out, int base, int ow, boolean second, float b) {
        int end = fullTiles(tw, ow);
        for (int run = 0; run < end; run += L) {
            int tx = Math.min(run, end - L), p = src + tx;
            FloatVector m0 = load(m, p, 0, plane), m1 = load(m, p, 1, plane), m2 = load(m, p, 2, plane), m3 = load(m, p, 3, plane);
            FloatVector m4 = load(m, p, 4, plane), m5 = load(m, p, 5, plane), m6 = load(m, p, 6, plane), m7 = load(m, p, 7, plane);
            FloatVector m8 = load(m, p, 8, plane), m9 = load(m, p, 9, plane), m10 = load(m, p, 10, plane), m11 = load(m, p, 11, plane);
            FloatVector s00 = m0.add(m4).add(m8), s01 = m1.add(m5).add(m9), s02 = m2.add(m6).add(m10), s03 = m3.add(m7).add(m11);
            int at = base + 2 * tx;
            zip(s00.add(s01).add(s02).add(b), s01.sub(s02).sub(s03).add(b), out, at);
            if (second) {
                FloatVector m12 = load(m, p, 12, plane), m13 = load(m, p, 13, plane), m14 = load(m, p, 14, plane), m15 = load(m, p, 15, plane);
                FloatVector s10 = m4.sub(m8).sub(m12), s11 = m5.sub(m9).sub(m13), s12 = m6.sub(m10).sub(m14), s13 = m7.sub(m11).sub(m15);
                zip(s10.add(s11).add(s12).add(b), s11.sub(s12).sub(s13).add(b), out, at + ow);
            }
        }
        return end;
    }

    /**
     * A dY Aᵀ for the row's first {@code end} tiles ({@link #fullTiles}); returns their Σ dY.
     *
     * @see WinogradTransforms#gradRow
     */
    static float gradOutput(float[] gd, int row, int ow, boolean second, int end, float[] dm, int dst, int plane) {
        FloatVector sum = FloatVector.zero(S), zero = FloatVector.zero(S);
        for (int run = 0; run < end; run += L) {
            int tx = Math.min(run, end - L);
            int at = row + 2 * tx;
            FloatVector a = FloatVector.fromArray(S, gd, at), b = FloatVector.fromArray(S, gd, at + L);
            FloatVector y00 = a.rearrange(EVEN, b), y01 = a.rearrange(ODD, b), y10 = zero, y11 = zero;
            if (second) {
                FloatVector c = FloatVector.fromArray(S, gd, at + ow), d = FloatVector.fromArray(S, gd, at + ow + L);
                y10 = c.rearrange(EVEN, d);
                y11 = c.rearrange(ODD, d);
            }
            // an overlapping last run counts only the tiles the run before did not
            sum = sum.add(y00.add(y01).add(y10.add(y11)), S.indexInRange(tx - run, L));
            int p = dst + tx;
            spread(dm, p, plane, y00, y01);
            spread(dm, p + 4 * plane, plane, y00.add(y10), y01.add(y11));
            spread(dm, p + 8 * plane, plane, y00.sub(y10), y01.sub(y11));
            spread(dm, p + 12 * plane, plane, y10.neg(), y11.neg());
        }
        return VectorReductions.addLanes(sum);
    }

    private static FloatVector load(float[] m, int p, int point, int plane) {
        return FloatVector.fromArray(S, m, p + point * plane);
    }

    /** a0 b0 a1 b1 … over 2L floats from at. */
    private static void zip(FloatVector a, FloatVector b, float[] out, int at) {
        a.rearrange(ZIP_LO, b).intoArray(out, at);
        a.rearrange(ZIP_HI, b).intoArray(out, at + L);
    }

    private static void spread(float[] dm, int p, int plane, FloatVector a, FloatVector b) {
        a.intoArray(dm, p);
        a.add(b).intoArray(dm, p + plane);
        a.sub(b).intoArray(dm, p + 2 * plane);
        b.neg().intoArray(dm, p + 3 * plane);
    }
}
