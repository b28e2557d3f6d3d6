package dev.symbiont.cpu.gemm;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;

import static dev.symbiont.cpu.gemm.VectorGemmKernels.SPECIES;

/**
 * An 8 × 16 block of floats transposed in registers: eight row vectors in, three rounds of
 * two-source permutes ({@code selectFrom}, one {@code vpermt2ps} each), and each result
 * vector's two columns stored as one vector or two masked halves. The GEMM packs row-major A
 * with it and the attention kernels transpose key blocks with it; a 16 × 16 block (a fourth
 * round, full-vector stores) packs column-major B.
 */
public final class VectorTranspose {
    private VectorTranspose() {}

    /** Whether the transpose runs here: it is written for 16-lane vectors (AVX-512). */
    public static final boolean AVAILABLE = SPECIES.length() == 16;

    /** The low and the high eight lanes: two columns of the block, stored ld apart. */
    private static final VectorMask<Float> LOW8 = VectorMask.fromLong(SPECIES, 0x00FFL),
            HIGH8 = VectorMask.fromLong(SPECIES, 0xFF00L);

    // Interleave indices for selectFrom(a, b): lanes 0..L-1 read a, L..2L-1 read b. Round g takes
    // runs of g lanes alternately from a and b, from the low (or high) half of each.
    private static final FloatVector I1_LO = interleave(1, false), I1_HI = interleave(1, true);
    private static final FloatVector I2_LO = interleave(2, false), I2_HI = interleave(2, true);
    private static final FloatVector I4_LO = interleave(4, false), I4_HI = interleave(4, true);
    /** The fourth round of a 16 × 16 block: the low (or high) halves of two vectors side by side. */
    private static final FloatVector HALVES_LO = halves(false), HALVES_HI = halves(true);

    private static FloatVector interleave(int g, boolean high) {
        float[] index = new float[SPECIES.length()];
        for (int i = 0; i < index.length; i++) {
            int run = i / (2 * g), within = i % (2 * g), base = (high ? index.length / 2 : 0) + run * g;
            index[i] = within < g ? base + within : index.length + base + within - g;
        }
        return FloatVector.fromArray(SPECIES, index, 0);
    }

    private static FloatVector halves(boolean high) {
        float[] index = new float[SPECIES.length()];
        int half = index.length / 2;
        for (int i = 0; i < index.length; i++) index[i] = (i < half ? 0 : index.length) + (high ? half : 0) + i % half;
        return FloatVector.fromArray(SPECIES, index, 0);
    }

    /** a[s + r·rs + p] for r &lt; 8, p &lt; 16 → dst[d + p·ld + r]. Requires {@link #AVAILABLE}. */
    public static void rows8x16(float[] a, int s, int rs, float[] dst, int d, int ld) {
        FloatVector r0 = FloatVector.fromArray(SPECIES, a, s), r1 = FloatVector.fromArray(SPECIES, a, s + rs);
        FloatVector r2 = FloatVector.fromArray(SPECIES, a, s + 2 * rs), r3 = FloatVector.fromArray(SPECIES, a, s + 3 * rs);
        FloatVector r4 = FloatVector.fromArray(SPECIES, a, s + 4 * rs), r5 = FloatVector.fromArray(SPECIES, a, s + 5 * rs);
        FloatVector r6 = FloatVector.fromArray(SPECIES, a, s + 6 * rs), r7 = FloatVector.fromArray(SPECIES, a, s + 7 * rs);
        // round 1: row pairs, one lane at a time: (r0, r1) → columns 0-7 and 8-15, two rows each
        FloatVector t01l = I1_LO.selectFrom(r0, r1), t01h = I1_HI.selectFrom(r0, r1);
        FloatVector t23l = I1_LO.selectFrom(r2, r3), t23h = I1_HI.selectFrom(r2, r3);
        FloatVector t45l = I1_LO.selectFrom(r4, r5), t45h = I1_HI.selectFrom(r4, r5);
        FloatVector t67l = I1_LO.selectFrom(r6, r7), t67h = I1_HI.selectFrom(r6, r7);
        // round 2: pairs of pairs → four rows × four columns per vector
        FloatVector u0 = I2_LO.selectFrom(t01l, t23l), u1 = I2_HI.selectFrom(t01l, t23l);
        FloatVector u2 = I2_LO.selectFrom(t01h, t23h), u3 = I2_HI.selectFrom(t01h, t23h);
        FloatVector w0 = I2_LO.selectFrom(t45l, t67l), w1 = I2_HI.selectFrom(t45l, t67l);
        FloatVector w2 = I2_LO.selectFrom(t45h, t67h), w3 = I2_HI.selectFrom(t45h, t67h);
        // round 3: rows 0-3 with rows 4-7 → eight rows × two columns per vector, in panel order
        twoSteps(I4_LO.selectFrom(u0, w0), dst, d, ld);
        twoSteps(I4_HI.selectFrom(u0, w0), dst, d + 2 * ld, ld);
        twoSteps(I4_LO.selectFrom(u1, w1), dst, d + 4 * ld, ld);
        twoSteps(I4_HI.selectFrom(u1, w1), dst, d + 6 * ld, ld);
        twoSteps(I4_LO.selectFrom(u2, w2), dst, d + 8 * ld, ld);
        twoSteps(I4_HI.selectFrom(u2, w2), dst, d + 10 * ld, ld);
        twoSteps(I4_LO.selectFrom(u3, w3), dst, d + 12 * ld, ld);
        twoSteps(I4_HI.selectFrom(u3, w3), dst, d + 14 * ld, ld);
    }

    /**
     * a[s + r·rs + p] for r, p &lt; 16 → dst[d + p·ld + r]: each of the 16 output rows one full
     * vector store, where two 8 × 16 blocks at ld 16 or more would store 32 masked halves. Rows
     * 0–7 and 8–15 go through {@link #rows8x16}'s three rounds; a fourth joins their halves.
     * Packing a Linear's (out, in) weight as B this way won 25 of 27 rounds alternated with
     * {@link #rows8x16}'s pairs (medians −28%, −11%, +9% in three JVMs), and the x·Wᵀ products
     * around it 15 of 22 (+1–4%; Zen 4). Requires {@link #AVAILABLE}.
     */
    public static void rows16x16(float[] a, int s, int rs, float[] dst, int d, int ld) {
        FloatVector r0 = FloatVector.fromArray(SPECIES, a, s), r1 = FloatVector.fromArray(SPECIES, a, s + rs);
        FloatVector r2 = FloatVector.fromArray(SPECIES, a, s + 2 * rs), r3 = FloatVector.fromArray(SPECIES, a, s + 3 * rs);
        FloatVector r4 = FloatVector.fromArray(SPECIES, a, s + 4 * rs), r5 = FloatVector.fromArray(SPECIES, a, s + 5 * rs);
        FloatVector r6 = FloatVector.fromArray(SPECIES, a, s + 6 * rs), r7 = FloatVector.fromArray(SPECIES, a, s + 7 * rs);
        FloatVector t01l = I1_LO.selectFrom(r0, r1), t01h = I1_HI.selectFrom(r0, r1);
        FloatVector t23l = I1_LO.selectFrom(r2, r3), t23h = I1_HI.selectFrom(r2, r3);
        FloatVector t45l = I1_LO.selectFrom(r4, r5), t45h = I1_HI.selectFrom(r4, r5);
        FloatVector t67l = I1_LO.selectFrom(r6, r7), t67h = I1_HI.selectFrom(r6, r7);
        FloatVector u0 = I2_LO.selectFrom(t01l, t23l), u1 = I2_HI.selectFrom(t01l, t23l);
        FloatVector u2 = I2_LO.selectFrom(t01h, t23h), u3 = I2_HI.selectFrom(t01h, t23h);
        FloatVector w0 = I2_LO.selectFrom(t45l, t67l), w1 = I2_HI.selectFrom(t45l, t67l);
        FloatVector w2 = I2_LO.selectFrom(t45h, t67h), w3 = I2_HI.selectFrom(t45h, t67h);
        // x_i: columns 2i and 2i + 1 of rows 0-7, eight lanes each
        FloatVector x0 = I4_LO.selectFrom(u0, w0), x1 = I4_HI.selectFrom(u0, w0), x2 = I4_LO.selectFrom(u1, w1), x3 = I4_HI.selectFrom(u1, w1);
        FloatVector x4 = I4_LO.selectFrom(u2, w2), x5 = I4_HI.selectFrom(u2, w2), x6 = I4_LO.selectFrom(u3, w3), x7 = I4_HI.selectFrom(u3, w3);
        int s8 = s + 8 * rs;
        r0 = FloatVector.fromArray(SPECIES, a, s8); r1 = FloatVector.fromArray(SPECIES, a, s8 + rs);
        r2 = FloatVector.fromArray(SPECIES, a, s8 + 2 * rs); r3 = FloatVector.fromArray(SPECIES, a, s8 + 3 * rs);
        r4 = FloatVector.fromArray(SPECIES, a, s8 + 4 * rs); r5 = FloatVector.fromArray(SPECIES, a, s8 + 5 * rs);
        r6 = FloatVector.fromArray(SPECIES, a, s8 + 6 * rs); r7 = FloatVector.fromArray(SPECIES, a, s8 + 7 * rs);
        t01l = I1_LO.selectFrom(r0, r1); t01h = I1_HI.selectFrom(r0, r1);
        t23l = I1_LO.selectFrom(r2, r3); t23h = I1_HI.selectFrom(r2, r3);
        t45l = I1_LO.selectFrom(r4, r5); t45h = I1_HI.selectFrom(r4, r5);
        t67l = I1_LO.selectFrom(r6, r7); t67h = I1_HI.selectFrom(r6, r7);
        u0 = I2_LO.selectFrom(t01l, t23l); u1 = I2_HI.selectFrom(t01l, t23l);
        u2 = I2_LO.selectFrom(t01h, t23h); u3 = I2_HI.selectFrom(t01h, t23h);
        w0 = I2_LO.selectFrom(t45l, t67l); w1 = I2_HI.selectFrom(t45l, t67l);
        w2 = I2_LO.selectFrom(t45h, t67h); w3 = I2_HI.selectFrom(t45h, t67h);
        // round 4: column 2i is x_i's low half beside y_i's (rows 8-15), column 2i + 1 their high halves
        joined(x0, I4_LO.selectFrom(u0, w0), dst, d, ld);
        joined(x1, I4_HI.selectFrom(u0, w0), dst, d + 2 * ld, ld);
        joined(x2, I4_LO.selectFrom(u1, w1), dst, d + 4 * ld, ld);
        joined(x3, I4_HI.selectFrom(u1, w1), dst, d + 6 * ld, ld);
        joined(x4, I4_LO.selectFrom(u2, w2), dst, d + 8 * ld, ld);
        joined(x5, I4_HI.selectFrom(u2, w2), dst, d + 10 * ld, ld);
        joined(x6, I4_LO.selectFrom(u3, w3), dst, d + 12 * ld, ld);
        joined(x7, I4_HI.selectFrom(u3, w3), dst, d + 14 * ld, ld);
    }

    /** Columns 2i and 2i + 1 of 16 rows from their top (x) and bottom (y) halves: two full rows of dst. */
    private static void joined(FloatVector x, FloatVector y, float[] dst, int at, int ld) {
        HALVES_LO.selectFrom(x, y).intoArray(dst, at);
        HALVES_HI.selectFrom(x, y).intoArray(dst, at + ld);
    }

    /** Eight values of two columns each: one store where the columns are adjacent (ld 8), else a masked half at each. */
    private static void twoSteps(FloatVector v, float[] dst, int at, int ld) {
        if (ld == 8) {
            v.intoArray(dst, at);
        } else {
            v.intoArray(dst, at, LOW8);
            v.intoArray(dst, at + ld - 8, HIGH8);
        }
    }
}
