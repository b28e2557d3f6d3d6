package dev.symbiont.cpu.gemm;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector-API constants and the register-tiled micro-kernel of {@link VectorGemm}.
 *
 * <p>Kept in a class of its own (Lucene's {@code VectorizationProvider} pattern): if the
 * incubator module is missing this class fails to initialise, and only this class — the
 * EJML fallback and the rest of the backend still load.
 *
 * <p>The micro-tile is {@link #MR} rows × {@link #NR} columns = 8 × (2 vectors). Its 16
 * accumulators, two B vectors and one broadcast A value take 19 of the 32 AVX-512
 * registers, so C2 keeps them all in registers; per k step the kernel issues 2 vector loads,
 * 8 broadcasts and 16 independent FMAs, enough to cover the FMA latency on both pipes.
 */
final class VectorGemmKernels {

    /** The one constant that picks the vector width (measured: 512-bit beats 256-bit here). */
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_512;
    /** Lanes per vector. */
    static final int L = SPECIES.length();
    /** Rows of the micro-tile: A values broadcast per k step. */
    static final int MR = 8;
    /** Columns of the micro-tile: two vectors. */
    static final int NR = 2 * L;

    private VectorGemmKernels() {}

    /**
     * C[MR×NR] (+)= Ap · Bp over {@code kc} steps.
     *
     * @param ap packed A micro-panel: element (r, p) at {@code aOff + p*MR + r}
     * @param bp packed B micro-panel: element (p, j) at {@code bOff + p*NR + j}
     * @param c output, row-major with row stride {@code ldc}, tile origin at {@code cOff};
     *          all MR×NR elements of the tile must lie inside C (callers route edge tiles
     *          through a scratch tile)
     * @param accumulate add to C when true, overwrite C when false
     */
    static void kernel(int kc, float[] ap, int aOff, float[] bp, int bOff,
                       float[] c, int cOff, int ldc, boolean accumulate) {
        FloatVector z = FloatVector.zero(SPECIES);
        FloatVector c00 = z, c01 = z, c10 = z, c11 = z, c20 = z, c21 = z, c30 = z, c31 = z;
        FloatVector c40 = z, c41 = z, c50 = z, c51 = z, c60 = z, c61 = z, c70 = z, c71 = z;
        for (int p = 0; p < kc; p++) {
            int bi = bOff + p * NR;
            int ai = aOff + p * MR;
            FloatVector b0 = FloatVector.fromArray(SPECIES, bp, bi);
            FloatVector b1 = FloatVector.fromArray(SPECIES, bp, bi + L);
            FloatVector a = FloatVector.broadcast(SPECIES, ap[ai]);
            c00 = a.fma(b0, c00);
            c01 = a.fma(b1, c01);
            a = FloatVector.broadcast(SPECIES, ap[ai + 1]);
            c10 = a.fma(b0, c10);
            c11 = a.fma(b1, c11);
            a = FloatVector.broadcast(SPECIES, ap[ai + 2]);
            c20 = a.fma(b0, c20);
            c21 = a.fma(b1, c21);
            a = FloatVector.broadcast(SPECIES, ap[ai + 3]);
            c30 = a.fma(b0, c30);
            c31 = a.fma(b1, c31);
            a = FloatVector.broadcast(SPECIES, ap[ai + 4]);
            c40 = a.fma(b0, c40);
            c41 = a.fma(b1, c41);
            a = FloatVector.broadcast(SPECIES, ap[ai + 5]);
            c50 = a.fma(b0, c50);
            c51 = a.fma(b1, c51);
            a = FloatVector.broadcast(SPECIES, ap[ai + 6]);
            c60 = a.fma(b0, c60);
            c61 = a.fma(b1, c61);
            a = FloatVector.broadcast(SPECIES, ap[ai + 7]);
            c70 = a.fma(b0, c70);
            c71 = a.fma(b1, c71);
        }
        store(c, cOff, c00, c01, accumulate);
        store(c, cOff + ldc, c10, c11, accumulate);
        store(c, cOff + 2 * ldc, c20, c21, accumulate);
        store(c, cOff + 3 * ldc, c30, c31, accumulate);
        store(c, cOff + 4 * ldc, c40, c41, accumulate);
        store(c, cOff + 5 * ldc, c50, c51, accumulate);
        store(c, cOff + 6 * ldc, c60, c61, accumulate);
        store(c, cOff + 7 * ldc, c70, c71, accumulate);
    }

    private static void store(float[] c, int off, FloatVector v0, FloatVector v1, boolean accumulate) {
        if (accumulate) {
            v0 = v0.add(FloatVector.fromArray(SPECIES, c, off));
            v1 = v1.add(FloatVector.fromArray(SPECIES, c, off + L));
        }
        v0.intoArray(c, off);
        v1.intoArray(c, off + L);
    }
}
