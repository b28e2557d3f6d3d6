package dev.symbiont.cpu.gemm;

import jdk.incubator.vector.FloatVector;
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
 *   <li>Column-major B (row stride 1: a Linear's (out, in) weight in x·Wᵀ, or the Bᵀ of the
 *       Winograd weight gradient's dM·Vᵀ), AVX-512 only: 16 columns × 16 k-steps at a time
 *       ({@link VectorTranspose#rows16x16}, each k-step one full-vector store), a last group of
 *       eight columns through the 8 × 16 transpose with masked half stores.</li>
 * </ul>
 * A partial last panel and the k-steps past the last multiple of L are packed by the scalar
 * code, in the same layout.
 */
final class VectorPacking {
    private VectorPacking() {}

    /** Whether row-major A is transposed with vectors here: the 8-row tile on 16-lane vectors (AVX-512). */
    static final boolean TRANSPOSES = VectorTranspose.AVAILABLE && MR == 8;

    /** MR lanes: one k step of a transposed A panel. */
    private static final VectorSpecies<Float> ROW_STEP = VectorSpecies.of(float.class, VectorShape.forBitSize(MR * Float.SIZE));

    /** An A block of any strides into MR-row panels, by the fastest packing its layout has. */
    static void packABlock(float[] a, int aOff, int rs, int cs, int i0, int mc, int p0, int kc, float[] dst, int dstOff) {
        if (cs == 1 && TRANSPOSES) {
            packA(a, aOff, rs, i0, mc, p0, kc, dst, dstOff);
        } else if (rs == 1) {
            packATransposed(a, aOff, cs, i0, mc, p0, kc, dst, dstOff);
        } else {
            GemmPacking.packA(a, aOff, rs, cs, i0, mc, p0, kc, MR, dst, dstOff);
        }
    }

    /**
     * Rows {@code [i0, i0+mc)} × columns {@code [p0, p0+kc)} of A (row stride rs, column
     * stride 1) into MR-row panels: panel q, element (r, p) at {@code q·MR·kc + p·MR + r};
     * rows past mc in the last panel are zero. Requires {@link #TRANSPOSES}.
     */
    static void packA(float[] a, int aOff, int rs, int i0, int mc, int p0, int kc, float[] dst, int dstOff) {
        int panels = (mc + MR - 1) / MR;
        for (int q = 0; q < panels; q++) {
            int base = dstOff + q * MR * kc, rows = Math.min(MR, mc - q * MR);
            int rowStart = aOff + (i0 + q * MR) * rs + p0;
            int p = 0;
            if (rows == MR) {
                for (; p + L <= kc; p += L) VectorTranspose.rows8x16(a, rowStart + p, rs, dst, base + p * MR, MR);
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
    static void packATransposed(float[] a, int aOff, int cs, int i0, int mc, int p0, int kc, float[] dst, int dstOff) {
        int full = mc / MR;
        for (int p = 0; p < kc; p++) {
            int src = aOff + i0 + (p0 + p) * cs;
            for (int q = 0, d = dstOff + p * MR; q < full; q++, d += MR * kc) {
                FloatVector.fromArray(ROW_STEP, a, src + q * MR).intoArray(dst, d);
            }
        }
        if (full * MR < mc) { // the partial last panel, zero-padded
            GemmPacking.packA(a, aOff, 1, cs, i0 + full * MR, mc - full * MR, p0, kc, MR, dst, dstOff + full * MR * kc);
        }
    }

    /**
     * B panels {@code [q0, q1)} of rows {@code [p0, p0+kc)} × columns {@code [j0, j0+nc)} (row
     * stride rs, column stride 1), laid out as {@link GemmPacking#packB} from {@code dst[dstOff]}: each
     * k step of a full panel is two vector copies; a partial last panel is packed by the scalar code.
     */
    static void packB(float[] b, int bOff, int rs, int p0, int kc, int j0, int nc, int q0, int q1, float[] dst, int dstOff) {
        int last = q1;
        if (q1 * NR > nc) last = q1 - 1; // the partial panel
        for (int q = q0; q < last; q++) {
            int src = bOff + p0 * rs + j0 + q * NR;
            for (int p = 0, d = dstOff + q * NR * kc; p < kc; p++, d += NR, src += rs) {
                FloatVector.fromArray(SPECIES, b, src).intoArray(dst, d);
                FloatVector.fromArray(SPECIES, b, src + L).intoArray(dst, d + L);
            }
        }
        if (last < q1 && last >= q0) GemmPacking.packB(b, bOff, rs, 1, p0, kc, j0, nc, NR, last, q1, dst, dstOff);
    }

    /**
     * As {@link #packB}, for B with row stride 1 and column stride cs (stored transposed): each
     * panel's columns are transposed 16 at a time (then eight), 16 k-steps per transpose — a
     * partial last panel's too, as far as it has whole groups of eight (a 24-channel Winograd
     * weight gradient is one such panel); the k-steps past the last multiple of 16 and the remaining columns are
     * packed by scalar code, and a partial panel's missing columns are zero. Requires
     * {@link #TRANSPOSES}.
     */
    static void packBTransposed(float[] b, int bOff, int cs, int p0, int kc, int j0, int nc, int q0, int q1, float[] dst, int dstOff) {
        int whole = kc - kc % L;
        for (int q = q0; q < q1; q++) {
            int cols = Math.min(NR, nc - q * NR), grouped = cols - cols % 8, wide = cols - cols % 16;
            int base = dstOff + q * NR * kc, first = bOff + p0 + (j0 + q * NR) * cs;
            for (int g = 0; g < grouped; g += g < wide ? 16 : 8) {
                for (int p = 0; p < whole; p += L) {
                    if (g < wide) VectorTranspose.rows16x16(b, first + g * cs + p, cs, dst, base + p * NR + g, NR);
                    else VectorTranspose.rows8x16(b, first + g * cs + p, cs, dst, base + p * NR + g, NR);
                }
            }
            for (int j = 0; j < cols; j++) {
                for (int p = j < grouped ? whole : 0, src = first + j * cs; p < kc; p++) dst[base + p * NR + j] = b[src + p];
            }
            for (int j = cols; j < NR; j++) {
                for (int p = 0; p < kc; p++) dst[base + p * NR + j] = 0f;
            }
        }
    }

    /**
     * Two B operands of one shape side by side, for {@link DualGemmTiles}: panel q holds columns
     * {@code [j0 + q·L, j0 + (q+1)·L)} of rows {@code [p0, p0+kc)} of b1 in its first L columns and
     * the same columns of b2 in its last L; element (p, j) of panel q at {@code q·NR·kc + p·NR + j}
     * as in {@link #packB}. Columns past nc are zero. Each operand may have any strides: row-major
     * halves are vector copies, column-major ones (a Linear's weight seen as (in, out)) 16 × 16
     * transposes, the rest scalar.
     */
    static void packBPaired(float[] b1, int o1, int rs1, int cs1, float[] b2, int o2, int rs2, int cs2,
                            int p0, int kc, int j0, int nc, float[] dst) {
        for (int q = 0; q * L < nc; q++) {
            int cols = Math.min(L, nc - q * L), base = q * NR * kc;
            packHalf(b1, o1, rs1, cs1, p0, kc, j0 + q * L, cols, dst, base);
            packHalf(b2, o2, rs2, cs2, p0, kc, j0 + q * L, cols, dst, base + L);
        }
    }

    /** Columns {@code [j, j+cols)} × rows {@code [p0, p0+kc)} of B into {@code dst[at + p·NR + c]}, zero past cols up to L. */
    private static void packHalf(float[] b, int off, int rs, int cs, int p0, int kc, int j, int cols, float[] dst, int at) {
        int src = off + p0 * rs + j * cs, p = 0;
        if (cols == L && cs == 1) {
            for (; p < kc; p++) FloatVector.fromArray(SPECIES, b, src + p * rs).intoArray(dst, at + p * NR);
        } else if (cols == L && rs == 1 && TRANSPOSES) {
            for (; p + L <= kc; p += L) VectorTranspose.rows16x16(b, src + p, cs, dst, at + p * NR, NR);
        }
        for (int c = 0; c < L; c++) {
            for (int pp = p; pp < kc; pp++) dst[at + pp * NR + c] = c < cols ? b[src + c * cs + pp * rs] : 0f;
        }
    }
}
