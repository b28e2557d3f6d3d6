package dev.symbiont.cpu.gemm;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

import static dev.symbiont.cpu.gemm.VectorGemmKernels.L;
import static dev.symbiont.cpu.gemm.VectorGemmKernels.MR;
import static dev.symbiont.cpu.gemm.VectorGemmKernels.NR;
import static dev.symbiont.cpu.gemm.VectorGemmKernels.SPECIES;

/**
 * The packing of {@link GemmPacking} with vector loads and stores, for the operand layouts a
 * training step hands the GEMM; {@link GemmPacking} is the scalar twin the tests compare with.
 * <ul>
 *   <li>Row-major A (column stride 1: activations and gradients), AVX-512 only: 8 rows × 16
 *       k-steps are loaded as eight vectors and transposed in three rounds of two-source permutes
 *       ({@code selectFrom}, one {@code vpermt2ps} each) into the panel's next 128 floats
 *       (measured 0.16 ns per element against 0.54 for the scalar loop, whose stores are eight
 *       floats apart). The same two rounds for AVX2's 4 × 8 packed 1.3–1.5× faster than the
 *       scalar loop but made the main job's products no faster (+5–7% at k = 512, −3–5% at
 *       k = 128, rounds alternated in one JVM on Zen 3), so the 4-row tile packs it in scalar code.</li>
 *   <li>Transposed A (row stride 1: the gᵀ of a weight gradient): the MR rows of a k step are
 *       MR adjacent floats, one short vector copy instead of an {@code arraycopy} call each.</li>
 *   <li>Row-major B (column stride 1): each k step of a full panel is two vector copies.</li>
 *   <li>Column-major B (row stride 1: the Bᵀ of an A·Bᵀ product whose operands both run along
 *       k, as the Winograd weight gradient's dM·Vᵀ), AVX-512 only: eight columns × 16 k-steps
 *       at a time through the same transpose as row-major A, each result vector's two k-steps
 *       stored as two masked halves one panel row apart.</li>
 * </ul>
 * A partial last panel and the k-steps past the last multiple of L are packed by the scalar
 * code, in the same layout.
 */
final class VectorPacking {
    private VectorPacking() {}

    /** Whether row-major A is transposed with vectors here: the 8-row tile on 16-lane vectors (AVX-512). */
    static final boolean TRANSPOSES = L == 16 && MR == 8;

    /** The low and the high eight lanes: two k-steps of eight B columns, stored one panel row apart. */
    private static final VectorMask<Float> LOW8 = VectorMask.fromLong(SPECIES, 0x00FFL),
            HIGH8 = VectorMask.fromLong(SPECIES, 0xFF00L);

    /** MR lanes: one k step of a transposed A panel. */
    private static final VectorSpecies<Float> ROW_STEP = VectorSpecies.of(float.class, VectorShape.forBitSize(MR * Float.SIZE));

    // Interleave indices for selectFrom(a, b): lanes 0..L-1 read a, L..2L-1 read b. Round g takes
    // runs of g lanes alternately from a and b, from the low (or high) half of each.
    private static final FloatVector I1_LO = interleave(1, false), I1_HI = interleave(1, true);
    private static final FloatVector I2_LO = interleave(2, false), I2_HI = interleave(2, true);
    private static final FloatVector I4_LO = interleave(4, false), I4_HI = interleave(4, true);

    private static FloatVector interleave(int g, boolean high) {
        float[] index = new float[SPECIES.length()];
        for (int i = 0; i < index.length; i++) {
            int run = i / (2 * g), within = i % (2 * g), base = (high ? index.length / 2 : 0) + run * g;
            index[i] = within < g ? base + within : index.length + base + within - g;
        }
        return FloatVector.fromArray(SPECIES, index, 0);
    }

    /**
     * Rows {@code [i0, i0+mc)} × columns {@code [p0, p0+kc)} of A (row stride rs, column
     * stride 1) into MR-row panels: panel q, element (r, p) at {@code q·MR·kc + p·MR + r};
     * rows past mc in the last panel are zero. Requires {@link #TRANSPOSES}.
     */
    static void packA(float[] a, int aOff, int rs, int i0, int mc, int p0, int kc, float[] dst) {
        int panels = (mc + MR - 1) / MR;
        for (int q = 0; q < panels; q++) {
            int base = q * MR * kc, rows = Math.min(MR, mc - q * MR);
            int rowStart = aOff + (i0 + q * MR) * rs + p0;
            int p = 0;
            if (rows == MR) {
                for (; p + L <= kc; p += L) transpose8x16(a, rowStart + p, rs, dst, base + p * MR);
            }
            for (int r = 0; r < MR; r++) {
                for (int pp = p, d = base + r + p * MR; pp < kc; pp++, d += MR) {
                    dst[d] = r < rows ? a[rowStart + r * rs + pp] : 0f;
                }
            }
        }
    }

    /**
     * As {@link #packA}, for A with row stride 1 and column stride cs (stored transposed): the
     * MR rows of each k step are adjacent, so a full panel's step is one MR-lane copy. The
     * block is walked along k, each step's mc adjacent floats in memory order.
     */
    static void packATransposed(float[] a, int aOff, int cs, int i0, int mc, int p0, int kc, float[] dst) {
        int full = mc / MR;
        for (int p = 0; p < kc; p++) {
            int src = aOff + i0 + (p0 + p) * cs;
            for (int q = 0, d = p * MR; q < full; q++, d += MR * kc) {
                FloatVector.fromArray(ROW_STEP, a, src + q * MR).intoArray(dst, d);
            }
        }
        if (full * MR < mc) { // the partial last panel, zero-padded
            GemmPacking.packA(a, aOff, 1, cs, i0 + full * MR, mc - full * MR, p0, kc, MR, dst, full * MR * kc);
        }
    }

    /**
     * B panels {@code [q0, q1)} of rows {@code [p0, p0+kc)} × columns {@code [j0, j0+nc)} (row
     * stride rs, column stride 1), laid out as {@link GemmPacking#packB}: each k step of a full
     * panel is two vector copies; a partial last panel is packed by the scalar code.
     */
    static void packB(float[] b, int bOff, int rs, int p0, int kc, int j0, int nc, int q0, int q1, float[] dst) {
        int last = q1;
        if (q1 * NR > nc) last = q1 - 1; // the partial panel
        for (int q = q0; q < last; q++) {
            int src = bOff + p0 * rs + j0 + q * NR;
            for (int p = 0, d = q * NR * kc; p < kc; p++, d += NR, src += rs) {
                FloatVector.fromArray(SPECIES, b, src).intoArray(dst, d);
                FloatVector.fromArray(SPECIES, b, src + L).intoArray(dst, d + L);
            }
        }
        if (last < q1 && last >= q0) GemmPacking.packB(b, bOff, rs, 1, p0, kc, j0, nc, NR, last, q1, dst);
    }

    /**
     * As {@link #packB}, for B with row stride 1 and column stride cs (stored transposed): each
     * full panel's columns are transposed eight at a time, 16 k-steps per transpose; the k-steps
     * past the last multiple of 16 and a partial last panel are packed by scalar code. Requires
     * {@link #TRANSPOSES}.
     */
    static void packBTransposed(float[] b, int bOff, int cs, int p0, int kc, int j0, int nc, int q0, int q1, float[] dst) {
        int last = q1;
        if (q1 * NR > nc) last = q1 - 1; // the partial panel
        int whole = kc - kc % L;
        for (int q = q0; q < last; q++) {
            int base = q * NR * kc, first = bOff + p0 + (j0 + q * NR) * cs;
            for (int g = 0; g < NR; g += 8) {
                for (int p = 0; p < whole; p += L) transpose8x16(b, first + g * cs + p, cs, dst, base + p * NR + g, NR);
            }
            for (int j = 0; j < NR; j++) {
                for (int p = whole, src = first + j * cs; p < kc; p++) dst[base + p * NR + j] = b[src + p];
            }
        }
        if (last < q1 && last >= q0) GemmPacking.packB(b, bOff, 1, cs, p0, kc, j0, nc, NR, last, q1, dst);
    }

    /** a[s + r·rs + p] for r < 8, p < 16 → dst[d + p·8 + r]: one 8-row A panel's 16 k-steps. */
    private static void transpose8x16(float[] a, int s, int rs, float[] dst, int d) {
        transpose8x16(a, s, rs, dst, d, 8);
    }

    /** a[s + r·rs + p] for r < 8, p < 16 → dst[d + p·ld + r]. */
    private static void transpose8x16(float[] a, int s, int rs, float[] dst, int d, int ld) {
        FloatVector r0 = FloatVector.fromArray(SPECIES, a, s), r1 = FloatVector.fromArray(SPECIES, a, s + rs);
        FloatVector r2 = FloatVector.fromArray(SPECIES, a, s + 2 * rs), r3 = FloatVector.fromArray(SPECIES, a, s + 3 * rs);
        FloatVector r4 = FloatVector.fromArray(SPECIES, a, s + 4 * rs), r5 = FloatVector.fromArray(SPECIES, a, s + 5 * rs);
        FloatVector r6 = FloatVector.fromArray(SPECIES, a, s + 6 * rs), r7 = FloatVector.fromArray(SPECIES, a, s + 7 * rs);
        // round 1: row pairs, one lane at a time: (r0, r1) → k 0-7 and k 8-15, two rows each
        FloatVector t01l = I1_LO.selectFrom(r0, r1), t01h = I1_HI.selectFrom(r0, r1);
        FloatVector t23l = I1_LO.selectFrom(r2, r3), t23h = I1_HI.selectFrom(r2, r3);
        FloatVector t45l = I1_LO.selectFrom(r4, r5), t45h = I1_HI.selectFrom(r4, r5);
        FloatVector t67l = I1_LO.selectFrom(r6, r7), t67h = I1_HI.selectFrom(r6, r7);
        // round 2: pairs of pairs → four rows × four k-steps per vector
        FloatVector u0 = I2_LO.selectFrom(t01l, t23l), u1 = I2_HI.selectFrom(t01l, t23l);
        FloatVector u2 = I2_LO.selectFrom(t01h, t23h), u3 = I2_HI.selectFrom(t01h, t23h);
        FloatVector w0 = I2_LO.selectFrom(t45l, t67l), w1 = I2_HI.selectFrom(t45l, t67l);
        FloatVector w2 = I2_LO.selectFrom(t45h, t67h), w3 = I2_HI.selectFrom(t45h, t67h);
        // round 3: rows 0-3 with rows 4-7 → eight rows × two k-steps per vector, in panel order
        twoSteps(I4_LO.selectFrom(u0, w0), dst, d, ld);
        twoSteps(I4_HI.selectFrom(u0, w0), dst, d + 2 * ld, ld);
        twoSteps(I4_LO.selectFrom(u1, w1), dst, d + 4 * ld, ld);
        twoSteps(I4_HI.selectFrom(u1, w1), dst, d + 6 * ld, ld);
        twoSteps(I4_LO.selectFrom(u2, w2), dst, d + 8 * ld, ld);
        twoSteps(I4_HI.selectFrom(u2, w2), dst, d + 10 * ld, ld);
        twoSteps(I4_LO.selectFrom(u3, w3), dst, d + 12 * ld, ld);
        twoSteps(I4_HI.selectFrom(u3, w3), dst, d + 14 * ld, ld);
    }

    /** Eight values of two k-steps each: one store where the steps are adjacent (ld 8), else a masked half at each. */
    private static void twoSteps(FloatVector v, float[] dst, int at, int ld) {
        if (ld == 8) {
            v.intoArray(dst, at);
        } else {
            v.intoArray(dst, at, LOW8);
            v.intoArray(dst, at + ld - 8, HIGH8);
        }
    }
}
