package dev.symbiont.cpu.gemm;

import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.gemm.VectorGemmKernels.L;
import static dev.symbiont.cpu.gemm.VectorGemmKernels.MR;
import static dev.symbiont.cpu.gemm.VectorGemmKernels.SPECIES;

/**
 * Packs a row-major A block (column stride 1, the common case: activations and gradients)
 * into the MR-row micro-panels of {@link GemmPacking#packA} with vector transposes: eight
 * rows × sixteen k-steps are loaded as eight vectors, transposed in three rounds of two-source
 * permutes ({@code selectFrom}, one {@code vpermt2ps} each), and stored as the panel's next
 * 128 floats. Measured 0.16 ns per element against 0.54 for the scalar loop, whose stores are
 * eight floats apart.
 *
 * <p>Only for 16-lane vectors with MR = 8 ({@link #SUPPORTED}); a partial last panel and the
 * k-steps past the last multiple of 16 are copied element by element, in the same layout.
 * {@link GemmPacking#packA} is the scalar twin the tests compare it with.
 */
final class VectorPacking {
    private VectorPacking() {}

    /** Lanes the transpose is written for: 8 rows × 16 k-steps → 8 vectors. */
    private static final int BLOCK_K = 16;

    /** Whether this JVM's vectors have the 16 lanes the transpose needs (AVX-512). */
    static final boolean SUPPORTED = L == BLOCK_K && MR == 8;

    // Interleave indices for selectFrom(a, b): lanes 0..15 read a, 16..31 read b. Round g takes
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
     * rows past mc in the last panel are zero. Requires {@link #SUPPORTED}.
     */
    static void packA(float[] a, int aOff, int rs, int i0, int mc, int p0, int kc, float[] dst) {
        int panels = (mc + MR - 1) / MR;
        for (int q = 0; q < panels; q++) {
            int base = q * MR * kc, rows = Math.min(MR, mc - q * MR);
            int rowStart = aOff + (i0 + q * MR) * rs + p0;
            int p = 0;
            if (rows == MR) {
                for (; p + BLOCK_K <= kc; p += BLOCK_K) transpose8x16(a, rowStart + p, rs, dst, base + p * MR);
            }
            for (int r = 0; r < MR; r++) {
                for (int pp = p, d = base + r + p * MR; pp < kc; pp++, d += MR) {
                    dst[d] = r < rows ? a[rowStart + r * rs + pp] : 0f;
                }
            }
        }
    }

    /** a[s + r·rs + p] for r < 8, p < 16 → dst[d + p·8 + r]. */
    private static void transpose8x16(float[] a, int s, int rs, float[] dst, int d) {
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
        I4_LO.selectFrom(u0, w0).intoArray(dst, d);
        I4_HI.selectFrom(u0, w0).intoArray(dst, d + 16);
        I4_LO.selectFrom(u1, w1).intoArray(dst, d + 32);
        I4_HI.selectFrom(u1, w1).intoArray(dst, d + 48);
        I4_LO.selectFrom(u2, w2).intoArray(dst, d + 64);
        I4_HI.selectFrom(u2, w2).intoArray(dst, d + 80);
        I4_LO.selectFrom(u3, w3).intoArray(dst, d + 96);
        I4_HI.selectFrom(u3, w3).intoArray(dst, d + 112);
    }
}
