package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * The register tiles of {@link VectorTileMath#mulAdd}, C (+)= A·B over a block of C; their
 * scalar twin is {@link ScalarTileMath#mulAdd}. The micro-tile is 8 rows × 2 vectors where the
 * register file has 32 vectors (AVX-512: 16 accumulators, two B loads and eight broadcast A
 * values per inner step, as the GEMM's micro-kernel), and 4 rows × 2 vectors where it has 16
 * (8 accumulators; eight would spill). Measured on Zen 4, one core, 64×64×64 products as an
 * attention block runs them: 4×32 at 68–76 GFLOP/s, 8×32 at 88–94 — the narrower tile spends
 * six loads on eight FMAs. Every element is the same FMA chain over p in either tile, so
 * the results are bit for bit the same. Where A's rows are consecutive (acs = 1) both tiles run a
 * copy indexed by p itself ({@link #tile8x2Rows}, {@link #tile4x2Rows}: C2 then hoists their
 * bounds checks), and where A is the attention backward's transposed block (rows 1 apart, columns
 * {@link #TRANSPOSED_STRIDE} apart) a copy indexed by p times that constant ({@link #tile8x2Cols},
 * {@link #tile4x2Cols}). {@link #tile4x1} and {@link #row} are the masked column tail and the
 * last rows.
 */
final class VectorTileKernels {

    /** Eight-row tiles: 16 accumulators + 3 fit a 32-register file (512-bit vectors), not a 16-register one. */
    static final boolean EIGHT_ROWS = L >= 16;

    /**
     * The column stride of A in the attention backward's transposed products (dV += Pᵀ·dO, dK += dSᵀ·q):
     * P and dS are blocks of {@link FlashAttention#BC} columns, read as Pᵀ with rows 1 apart.
     */
    static final int TRANSPOSED_STRIDE = FlashAttention.BC;

    private VectorTileKernels() {}

    /** The 8 × 2L tile: {@link #tile4x2} with eight rows (AVX-512 only, see {@link #EIGHT_ROWS}). */
    static void tile8x2(int k, float[] a, int ai, int ars, int acs, float[] b, int bi, int ldb,
                        float[] c, int ci, int ldc, boolean accumulate) {
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71;
        if (accumulate) {
            c00 = FloatVector.fromArray(S, c, ci + 0 * ldc); c01 = FloatVector.fromArray(S, c, ci + 0 * ldc + L);
            c10 = FloatVector.fromArray(S, c, ci + 1 * ldc); c11 = FloatVector.fromArray(S, c, ci + 1 * ldc + L);
            c20 = FloatVector.fromArray(S, c, ci + 2 * ldc); c21 = FloatVector.fromArray(S, c, ci + 2 * ldc + L);
            c30 = FloatVector.fromArray(S, c, ci + 3 * ldc); c31 = FloatVector.fromArray(S, c, ci + 3 * ldc + L);
            c40 = FloatVector.fromArray(S, c, ci + 4 * ldc); c41 = FloatVector.fromArray(S, c, ci + 4 * ldc + L);
            c50 = FloatVector.fromArray(S, c, ci + 5 * ldc); c51 = FloatVector.fromArray(S, c, ci + 5 * ldc + L);
            c60 = FloatVector.fromArray(S, c, ci + 6 * ldc); c61 = FloatVector.fromArray(S, c, ci + 6 * ldc + L);
            c70 = FloatVector.fromArray(S, c, ci + 7 * ldc); c71 = FloatVector.fromArray(S, c, ci + 7 * ldc + L);
        } else {
            FloatVector z = FloatVector.zero(S);
            c00 = z; c01 = z; c10 = z; c11 = z; c20 = z; c21 = z; c30 = z; c31 = z;
            c40 = z; c41 = z; c50 = z; c51 = z; c60 = z; c61 = z; c70 = z; c71 = z;
        }
        int a0 = ai, a1 = ai + ars, a2 = ai + 2 * ars, a3 = ai + 3 * ars;
        int a4 = ai + 4 * ars, a5 = ai + 5 * ars, a6 = ai + 6 * ars, a7 = ai + 7 * ars;
        for (int p = 0; p < k; p++) {
            int bp = bi + p * ldb, ap = p * acs;
            FloatVector b0 = FloatVector.fromArray(S, b, bp), b1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector av = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = av.fma(b0, c00);
            c01 = av.fma(b1, c01);
            av = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = av.fma(b0, c10);
            c11 = av.fma(b1, c11);
            av = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = av.fma(b0, c20);
            c21 = av.fma(b1, c21);
            av = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = av.fma(b0, c30);
            c31 = av.fma(b1, c31);
            av = FloatVector.broadcast(S, a[a4 + ap]);
            c40 = av.fma(b0, c40);
            c41 = av.fma(b1, c41);
            av = FloatVector.broadcast(S, a[a5 + ap]);
            c50 = av.fma(b0, c50);
            c51 = av.fma(b1, c51);
            av = FloatVector.broadcast(S, a[a6 + ap]);
            c60 = av.fma(b0, c60);
            c61 = av.fma(b1, c61);
            av = FloatVector.broadcast(S, a[a7 + ap]);
            c70 = av.fma(b0, c70);
            c71 = av.fma(b1, c71);
        }
        c00.intoArray(c, ci); c01.intoArray(c, ci + L);
        c10.intoArray(c, ci + ldc); c11.intoArray(c, ci + ldc + L);
        c20.intoArray(c, ci + 2 * ldc); c21.intoArray(c, ci + 2 * ldc + L);
        c30.intoArray(c, ci + 3 * ldc); c31.intoArray(c, ci + 3 * ldc + L);
        c40.intoArray(c, ci + 4 * ldc); c41.intoArray(c, ci + 4 * ldc + L);
        c50.intoArray(c, ci + 5 * ldc); c51.intoArray(c, ci + 5 * ldc + L);
        c60.intoArray(c, ci + 6 * ldc); c61.intoArray(c, ci + 6 * ldc + L);
        c70.intoArray(c, ci + 7 * ldc); c71.intoArray(c, ci + 7 * ldc + L);
    }

    /**
     * {@link #tile8x2} where A's rows are consecutive (acs = 1: Q, P and dS blocks; only the
     * backward's Pᵀ and dSᵀ are read across rows). A's index is then p itself, which lets C2
     * hoist the eight scalar loads' bounds checks out of the loop — a variable stride keeps them
     * in it. Same FMA chain, same bits. Measured on Zen 4 (causal attention forward + backward, b 1,
     * 8 heads, d 64, both kernels alternated in one JVM): seq 512 / 2048 / 4096 −4% each, won 7 of
     * 9, 8 of 9 and 4 of 7 rounds.
     */
    static void tile8x2Rows(int k, float[] a, int ai, int ars, float[] b, int bi, int ldb,
                            float[] c, int ci, int ldc, boolean accumulate) {
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71;
        if (accumulate) {
            c00 = FloatVector.fromArray(S, c, ci + 0 * ldc); c01 = FloatVector.fromArray(S, c, ci + 0 * ldc + L);
            c10 = FloatVector.fromArray(S, c, ci + 1 * ldc); c11 = FloatVector.fromArray(S, c, ci + 1 * ldc + L);
            c20 = FloatVector.fromArray(S, c, ci + 2 * ldc); c21 = FloatVector.fromArray(S, c, ci + 2 * ldc + L);
            c30 = FloatVector.fromArray(S, c, ci + 3 * ldc); c31 = FloatVector.fromArray(S, c, ci + 3 * ldc + L);
            c40 = FloatVector.fromArray(S, c, ci + 4 * ldc); c41 = FloatVector.fromArray(S, c, ci + 4 * ldc + L);
            c50 = FloatVector.fromArray(S, c, ci + 5 * ldc); c51 = FloatVector.fromArray(S, c, ci + 5 * ldc + L);
            c60 = FloatVector.fromArray(S, c, ci + 6 * ldc); c61 = FloatVector.fromArray(S, c, ci + 6 * ldc + L);
            c70 = FloatVector.fromArray(S, c, ci + 7 * ldc); c71 = FloatVector.fromArray(S, c, ci + 7 * ldc + L);
        } else {
            FloatVector z = FloatVector.zero(S);
            c00 = z; c01 = z; c10 = z; c11 = z; c20 = z; c21 = z; c30 = z; c31 = z;
            c40 = z; c41 = z; c50 = z; c51 = z; c60 = z; c61 = z; c70 = z; c71 = z;
        }
        int a0 = ai, a1 = ai + ars, a2 = ai + 2 * ars, a3 = ai + 3 * ars;
        int a4 = ai + 4 * ars, a5 = ai + 5 * ars, a6 = ai + 6 * ars, a7 = ai + 7 * ars;
        for (int p = 0; p < k; p++) {
            int bp = bi + p * ldb, ap = p;
            FloatVector b0 = FloatVector.fromArray(S, b, bp), b1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector av = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = av.fma(b0, c00);
            c01 = av.fma(b1, c01);
            av = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = av.fma(b0, c10);
            c11 = av.fma(b1, c11);
            av = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = av.fma(b0, c20);
            c21 = av.fma(b1, c21);
            av = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = av.fma(b0, c30);
            c31 = av.fma(b1, c31);
            av = FloatVector.broadcast(S, a[a4 + ap]);
            c40 = av.fma(b0, c40);
            c41 = av.fma(b1, c41);
            av = FloatVector.broadcast(S, a[a5 + ap]);
            c50 = av.fma(b0, c50);
            c51 = av.fma(b1, c51);
            av = FloatVector.broadcast(S, a[a6 + ap]);
            c60 = av.fma(b0, c60);
            c61 = av.fma(b1, c61);
            av = FloatVector.broadcast(S, a[a7 + ap]);
            c70 = av.fma(b0, c70);
            c71 = av.fma(b1, c71);
        }
        c00.intoArray(c, ci); c01.intoArray(c, ci + L);
        c10.intoArray(c, ci + ldc); c11.intoArray(c, ci + ldc + L);
        c20.intoArray(c, ci + 2 * ldc); c21.intoArray(c, ci + 2 * ldc + L);
        c30.intoArray(c, ci + 3 * ldc); c31.intoArray(c, ci + 3 * ldc + L);
        c40.intoArray(c, ci + 4 * ldc); c41.intoArray(c, ci + 4 * ldc + L);
        c50.intoArray(c, ci + 5 * ldc); c51.intoArray(c, ci + 5 * ldc + L);
        c60.intoArray(c, ci + 6 * ldc); c61.intoArray(c, ci + 6 * ldc + L);
        c70.intoArray(c, ci + 7 * ldc); c71.intoArray(c, ci + 7 * ldc + L);
    }

    /** {@link #tile8x2} for A stored transposed with column stride {@link #TRANSPOSED_STRIDE}: a constant, so C2 hoists the bounds checks. */
    static void tile8x2Cols(int k, float[] a, int ai, float[] b, int bi, int ldb,
                            float[] c, int ci, int ldc, boolean accumulate) {
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71;
        if (accumulate) {
            c00 = FloatVector.fromArray(S, c, ci + 0 * ldc); c01 = FloatVector.fromArray(S, c, ci + 0 * ldc + L);
            c10 = FloatVector.fromArray(S, c, ci + 1 * ldc); c11 = FloatVector.fromArray(S, c, ci + 1 * ldc + L);
            c20 = FloatVector.fromArray(S, c, ci + 2 * ldc); c21 = FloatVector.fromArray(S, c, ci + 2 * ldc + L);
            c30 = FloatVector.fromArray(S, c, ci + 3 * ldc); c31 = FloatVector.fromArray(S, c, ci + 3 * ldc + L);
            c40 = FloatVector.fromArray(S, c, ci + 4 * ldc); c41 = FloatVector.fromArray(S, c, ci + 4 * ldc + L);
            c50 = FloatVector.fromArray(S, c, ci + 5 * ldc); c51 = FloatVector.fromArray(S, c, ci + 5 * ldc + L);
            c60 = FloatVector.fromArray(S, c, ci + 6 * ldc); c61 = FloatVector.fromArray(S, c, ci + 6 * ldc + L);
            c70 = FloatVector.fromArray(S, c, ci + 7 * ldc); c71 = FloatVector.fromArray(S, c, ci + 7 * ldc + L);
        } else {
            FloatVector z = FloatVector.zero(S);
            c00 = z; c01 = z; c10 = z; c11 = z; c20 = z; c21 = z; c30 = z; c31 = z;
            c40 = z; c41 = z; c50 = z; c51 = z; c60 = z; c61 = z; c70 = z; c71 = z;
        }
        int a0 = ai, a1 = ai + 1, a2 = ai + 2, a3 = ai + 3, a4 = ai + 4, a5 = ai + 5, a6 = ai + 6, a7 = ai + 7;
        for (int p = 0; p < k; p++) {
            int bp = bi + p * ldb, ap = p * TRANSPOSED_STRIDE;
            FloatVector b0 = FloatVector.fromArray(S, b, bp), b1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector av = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = av.fma(b0, c00);
            c01 = av.fma(b1, c01);
            av = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = av.fma(b0, c10);
            c11 = av.fma(b1, c11);
            av = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = av.fma(b0, c20);
            c21 = av.fma(b1, c21);
            av = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = av.fma(b0, c30);
            c31 = av.fma(b1, c31);
            av = FloatVector.broadcast(S, a[a4 + ap]);
            c40 = av.fma(b0, c40);
            c41 = av.fma(b1, c41);
            av = FloatVector.broadcast(S, a[a5 + ap]);
            c50 = av.fma(b0, c50);
            c51 = av.fma(b1, c51);
            av = FloatVector.broadcast(S, a[a6 + ap]);
            c60 = av.fma(b0, c60);
            c61 = av.fma(b1, c61);
            av = FloatVector.broadcast(S, a[a7 + ap]);
            c70 = av.fma(b0, c70);
            c71 = av.fma(b1, c71);
        }
        c00.intoArray(c, ci); c01.intoArray(c, ci + L);
        c10.intoArray(c, ci + ldc); c11.intoArray(c, ci + ldc + L);
        c20.intoArray(c, ci + 2 * ldc); c21.intoArray(c, ci + 2 * ldc + L);
        c30.intoArray(c, ci + 3 * ldc); c31.intoArray(c, ci + 3 * ldc + L);
        c40.intoArray(c, ci + 4 * ldc); c41.intoArray(c, ci + 4 * ldc + L);
        c50.intoArray(c, ci + 5 * ldc); c51.intoArray(c, ci + 5 * ldc + L);
        c60.intoArray(c, ci + 6 * ldc); c61.intoArray(c, ci + 6 * ldc + L);
        c70.intoArray(c, ci + 7 * ldc); c71.intoArray(c, ci + 7 * ldc + L);
    }

    static void tile4x2(int k, float[] a, int ai, int ars, int acs, float[] b, int bi, int ldb,
                        float[] c, int ci, int ldc, boolean accumulate) {
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31;
        if (accumulate) {
            c00 = FloatVector.fromArray(S, c, ci); c01 = FloatVector.fromArray(S, c, ci + L);
            c10 = FloatVector.fromArray(S, c, ci + ldc); c11 = FloatVector.fromArray(S, c, ci + ldc + L);
            c20 = FloatVector.fromArray(S, c, ci + 2 * ldc); c21 = FloatVector.fromArray(S, c, ci + 2 * ldc + L);
            c30 = FloatVector.fromArray(S, c, ci + 3 * ldc); c31 = FloatVector.fromArray(S, c, ci + 3 * ldc + L);
        } else {
            FloatVector z = FloatVector.zero(S);
            c00 = z; c01 = z; c10 = z; c11 = z; c20 = z; c21 = z; c30 = z; c31 = z;
        }
        int a0 = ai, a1 = ai + ars, a2 = ai + 2 * ars, a3 = ai + 3 * ars;
        for (int p = 0; p < k; p++) {
            int bp = bi + p * ldb, ap = p * acs;
            FloatVector b0 = FloatVector.fromArray(S, b, bp), b1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector av = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = av.fma(b0, c00);
            c01 = av.fma(b1, c01);
            av = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = av.fma(b0, c10);
            c11 = av.fma(b1, c11);
            av = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = av.fma(b0, c20);
            c21 = av.fma(b1, c21);
            av = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = av.fma(b0, c30);
            c31 = av.fma(b1, c31);
        }
        c00.intoArray(c, ci); c01.intoArray(c, ci + L);
        c10.intoArray(c, ci + ldc); c11.intoArray(c, ci + ldc + L);
        c20.intoArray(c, ci + 2 * ldc); c21.intoArray(c, ci + 2 * ldc + L);
        c30.intoArray(c, ci + 3 * ldc); c31.intoArray(c, ci + 3 * ldc + L);
    }

    /**
     * {@link #tile4x2} where A's rows are consecutive, as {@link #tile8x2Rows}: on AVX2 (the
     * 4-row tile is the main one there) the hoisted bounds checks matter more — measured with
     * {@code -XX:UseAVX=2} on Zen 4 (causal attention forward + backward, b 1, 8 heads, d 64, both
     * tiles alternated in one JVM): seq 512 / 1024 / 2048 −17% / −13% / −19 to −22%, won 9, 7 and
     * 7–8 of 9 rounds.
     */
    static void tile4x2Rows(int k, float[] a, int ai, int ars, float[] b, int bi, int ldb,
                            float[] c, int ci, int ldc, boolean accumulate) {
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31;
        if (accumulate) {
            c00 = FloatVector.fromArray(S, c, ci); c01 = FloatVector.fromArray(S, c, ci + L);
            c10 = FloatVector.fromArray(S, c, ci + ldc); c11 = FloatVector.fromArray(S, c, ci + ldc + L);
            c20 = FloatVector.fromArray(S, c, ci + 2 * ldc); c21 = FloatVector.fromArray(S, c, ci + 2 * ldc + L);
            c30 = FloatVector.fromArray(S, c, ci + 3 * ldc); c31 = FloatVector.fromArray(S, c, ci + 3 * ldc + L);
        } else {
            FloatVector z = FloatVector.zero(S);
            c00 = z; c01 = z; c10 = z; c11 = z; c20 = z; c21 = z; c30 = z; c31 = z;
        }
        int a0 = ai, a1 = ai + ars, a2 = ai + 2 * ars, a3 = ai + 3 * ars;
        for (int p = 0; p < k; p++) {
            int bp = bi + p * ldb, ap = p;
            FloatVector b0 = FloatVector.fromArray(S, b, bp), b1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector av = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = av.fma(b0, c00);
            c01 = av.fma(b1, c01);
            av = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = av.fma(b0, c10);
            c11 = av.fma(b1, c11);
            av = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = av.fma(b0, c20);
            c21 = av.fma(b1, c21);
            av = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = av.fma(b0, c30);
            c31 = av.fma(b1, c31);
        }
        c00.intoArray(c, ci); c01.intoArray(c, ci + L);
        c10.intoArray(c, ci + ldc); c11.intoArray(c, ci + ldc + L);
        c20.intoArray(c, ci + 2 * ldc); c21.intoArray(c, ci + 2 * ldc + L);
        c30.intoArray(c, ci + 3 * ldc); c31.intoArray(c, ci + 3 * ldc + L);
    }

    /** {@link #tile4x2} for A stored transposed with column stride {@link #TRANSPOSED_STRIDE} (see {@link #tile8x2Cols}). */
    static void tile4x2Cols(int k, float[] a, int ai, float[] b, int bi, int ldb,
                            float[] c, int ci, int ldc, boolean accumulate) {
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31;
        if (accumulate) {
            c00 = FloatVector.fromArray(S, c, ci); c01 = FloatVector.fromArray(S, c, ci + L);
            c10 = FloatVector.fromArray(S, c, ci + ldc); c11 = FloatVector.fromArray(S, c, ci + ldc + L);
            c20 = FloatVector.fromArray(S, c, ci + 2 * ldc); c21 = FloatVector.fromArray(S, c, ci + 2 * ldc + L);
            c30 = FloatVector.fromArray(S, c, ci + 3 * ldc); c31 = FloatVector.fromArray(S, c, ci + 3 * ldc + L);
        } else {
            FloatVector z = FloatVector.zero(S);
            c00 = z; c01 = z; c10 = z; c11 = z; c20 = z; c21 = z; c30 = z; c31 = z;
        }
        int a0 = ai, a1 = ai + 1, a2 = ai + 2, a3 = ai + 3;
        for (int p = 0; p < k; p++) {
            int bp = bi + p * ldb, ap = p * TRANSPOSED_STRIDE;
            FloatVector b0 = FloatVector.fromArray(S, b, bp), b1 = FloatVector.fromArray(S, b, bp + L);
            FloatVector av = FloatVector.broadcast(S, a[a0 + ap]);
            c00 = av.fma(b0, c00);
            c01 = av.fma(b1, c01);
            av = FloatVector.broadcast(S, a[a1 + ap]);
            c10 = av.fma(b0, c10);
            c11 = av.fma(b1, c11);
            av = FloatVector.broadcast(S, a[a2 + ap]);
            c20 = av.fma(b0, c20);
            c21 = av.fma(b1, c21);
            av = FloatVector.broadcast(S, a[a3 + ap]);
            c30 = av.fma(b0, c30);
            c31 = av.fma(b1, c31);
        }
        c00.intoArray(c, ci); c01.intoArray(c, ci + L);
        c10.intoArray(c, ci + ldc); c11.intoArray(c, ci + ldc + L);
        c20.intoArray(c, ci + 2 * ldc); c21.intoArray(c, ci + 2 * ldc + L);
        c30.intoArray(c, ci + 3 * ldc); c31.intoArray(c, ci + 3 * ldc + L);
    }

    static void tile4x1(int k, float[] a, int ai, int ars, int acs, float[] b, int bi, int ldb,
                        float[] c, int ci, int ldc, boolean accumulate, VectorMask<Float> mask) {
        FloatVector c0, c1, c2, c3;
        if (accumulate) {
            c0 = FloatVector.fromArray(S, c, ci, mask);
            c1 = FloatVector.fromArray(S, c, ci + ldc, mask);
            c2 = FloatVector.fromArray(S, c, ci + 2 * ldc, mask);
            c3 = FloatVector.fromArray(S, c, ci + 3 * ldc, mask);
        } else {
            c0 = FloatVector.zero(S); c1 = c0; c2 = c0; c3 = c0;
        }
        int a0 = ai, a1 = ai + ars, a2 = ai + 2 * ars, a3 = ai + 3 * ars;
        for (int p = 0; p < k; p++) {
            int ap = p * acs;
            FloatVector bv = FloatVector.fromArray(S, b, bi + p * ldb, mask);
            c0 = FloatVector.broadcast(S, a[a0 + ap]).fma(bv, c0);
            c1 = FloatVector.broadcast(S, a[a1 + ap]).fma(bv, c1);
            c2 = FloatVector.broadcast(S, a[a2 + ap]).fma(bv, c2);
            c3 = FloatVector.broadcast(S, a[a3 + ap]).fma(bv, c3);
        }
        c0.intoArray(c, ci, mask);
        c1.intoArray(c, ci + ldc, mask);
        c2.intoArray(c, ci + 2 * ldc, mask);
        c3.intoArray(c, ci + 3 * ldc, mask);
    }

    static void row(int k, float[] a, int ai, int acs, float[] b, int bi, int ldb,
                    float[] c, int ci, boolean accumulate, VectorMask<Float> mask) {
        FloatVector acc = accumulate ? FloatVector.fromArray(S, c, ci, mask) : FloatVector.zero(S);
        for (int p = 0; p < k; p++) {
            acc = FloatVector.broadcast(S, a[ai + p * acs]).fma(FloatVector.fromArray(S, b, bi + p * ldb, mask), acc);
        }
        acc.intoArray(c, ci, mask);
    }
}
