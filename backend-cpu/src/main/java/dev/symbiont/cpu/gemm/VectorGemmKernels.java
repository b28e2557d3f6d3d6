package dev.symbiont.cpu.gemm;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * The Vector-API constants and the register-tiled micro-kernels of {@link VectorGemm}.
 *
 * <p>Kept in a class of its own (Lucene's {@code VectorizationProvider} pattern): if the
 * incubator module is missing this class fails to initialise, and only this class — the
 * EJML fallback and the rest of the backend still load.
 *
 * <p>The micro-tile is {@link #MR} rows × {@link #NR} columns, NR = two vectors, and MR is
 * picked from the register file at class init. Per k step the kernel keeps 2·MR accumulators,
 * two B vectors and one broadcast A value live:
 * <ul>
 *   <li>512-bit vectors (AVX-512, 32 registers): 8 × 32 — 16 accumulators + 3 = 19 registers,
 *       16 independent FMAs per k step;</li>
 *   <li>narrower vectors (AVX2, 16 registers): 4 × 16 — 8 accumulators + 3 = 11 registers,
 *       8 FMAs per k step, just enough to cover Zen 3's 4-cycle FMA latency on its two pipes.
 *       8 × 16 needs 19 registers and spills. Tiles of 10–12 accumulators fit on paper
 *       (BLIS's 6 × 16 takes 15) but ran as if C2 spilled them too: measured on Zen 3, one
 *       core, the kernel alone at kc = 256, 4 × 16 ran at 78–89 GFLOP/s, 8 × 16 at ~50,
 *       6 × 16 at ~41, 5 × 16 at ~34.</li>
 * </ul>
 * The system property {@code symbiont.cpu.gemm.mr} (4 or 8) overrides the choice, so both
 * tiles are tested on any machine. The loads index packed buffers linearly in the loop
 * variable, so C2 hoists their range checks; nothing in the loop allocates.
 */
final class VectorGemmKernels {

    /**
     * The one constant that picks the vector width: the widest the CPU runs natively.
     * Measured on Zen 5 (AVX-512, full-width FMAs), one core, n=512: 512-bit 176 GFLOP/s,
     * 256-bit (8×16 tile) 96 GFLOP/s. Forcing 512 on an AVX2-only CPU would fall off the
     * intrinsics entirely, so the preferred species it is.
     */
    static final VectorSpecies<Float> SPECIES = FloatVector.SPECIES_PREFERRED;
    /** Lanes per vector. */
    static final int L = SPECIES.length();
    /** Rows of the micro-tile: A values broadcast per k step (4 or 8, see the class comment). */
    static final int MR = rows(Integer.getInteger("symbiont.cpu.gemm.mr", L >= 16 ? 8 : 4));
    /** Columns of the micro-tile: two vectors. */
    static final int NR = 2 * L;
    /** The addend of a tile that overwrites C without a bias: one row of zeros, read with row stride 0. */
    private static final float[] ZEROS = new float[NR];
    /** One lane per tile row: the row sums of a packed A panel add one of these per k step. */
    private static final VectorSpecies<Float> PANEL = MR == 8 ? FloatVector.SPECIES_256 : FloatVector.SPECIES_128;

    private VectorGemmKernels() {}

    /** The tile rows asked for, checked: only 4 and 8 have a kernel. */
    static int rows(int mr) {
        if (mr != 4 && mr != 8) {
            throw new IllegalArgumentException("symbiont.cpu.gemm.mr must be 4 or 8, got " + mr);
        }
        return mr;
    }

    /**
     * C[MR×NR] (+)= Ap · Bp over {@code kc} steps.
     *
     * @param ap packed A micro-panel: element (r, p) at {@code aOff + p*MR + r}
     * @param bp packed B micro-panel: element (p, j) at {@code bOff + p*NR + j}
     * @param c output, row-major with row stride {@code ldc}, tile origin at {@code cOff};
     *          all MR×NR elements of the tile must lie inside C (callers route edge tiles
     *          through a scratch tile)
     * @param accumulate add to C when true, overwrite C when false
     * @param bias when not accumulating and not null, NR values added to every row of the
     *             tile (a Linear layer's bias, added while the tile is in registers)
     */
    static void kernel(int kc, float[] ap, int aOff, float[] bp, int bOff,
                       float[] c, int cOff, int ldc, boolean accumulate, float[] bias, int biasOff) {
        // MR is a static final: C2 folds the branch and inlines one kernel
        if (MR == 8) {
            kernel8(kc, ap, aOff, bp, bOff, c, cOff, ldc, accumulate, bias, biasOff);
        } else {
            // the addend is a row-strided source: C itself, the bias repeated (row stride 0), or zeros
            float[] addend = accumulate ? c : bias != null ? bias : ZEROS;
            int addOff = accumulate ? cOff : bias != null ? biasOff : 0;
            kernel4(kc, ap, aOff, bp, bOff, addend, addOff, accumulate ? ldc : 0, c, cOff, ldc);
        }
    }

    /**
     * The 8 × 2L tile: 16 accumulators, for 32-register CPUs. Its accumulators start from C or
     * the bias (the form measured on AVX-512): written like {@link #kernel4}, adding C or the
     * bias after the loop, it ran at a quarter of the speed (8 × 16 on Zen 3: 18 against 70
     * GFLOP/s at n = 1024), as an epilogue add did on AVX-512 before.
     */
    private static void kernel8(int kc, float[] ap, int aOff, float[] bp, int bOff,
                                float[] c, int cOff, int ldc, boolean accumulate, float[] bias, int biasOff) {
        FloatVector c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51, c60, c61, c70, c71;
        if (accumulate) {
            // start from C itself: the tail is then a plain store, no add
            int o = cOff;
            c00 = FloatVector.fromArray(SPECIES, c, o); c01 = FloatVector.fromArray(SPECIES, c, o + L); o += ldc;
            c10 = FloatVector.fromArray(SPECIES, c, o); c11 = FloatVector.fromArray(SPECIES, c, o + L); o += ldc;
            c20 = FloatVector.fromArray(SPECIES, c, o); c21 = FloatVector.fromArray(SPECIES, c, o + L); o += ldc;
            c30 = FloatVector.fromArray(SPECIES, c, o); c31 = FloatVector.fromArray(SPECIES, c, o + L); o += ldc;
            c40 = FloatVector.fromArray(SPECIES, c, o); c41 = FloatVector.fromArray(SPECIES, c, o + L); o += ldc;
            c50 = FloatVector.fromArray(SPECIES, c, o); c51 = FloatVector.fromArray(SPECIES, c, o + L); o += ldc;
            c60 = FloatVector.fromArray(SPECIES, c, o); c61 = FloatVector.fromArray(SPECIES, c, o + L); o += ldc;
            c70 = FloatVector.fromArray(SPECIES, c, o); c71 = FloatVector.fromArray(SPECIES, c, o + L);
        } else {
            FloatVector z0 = bias == null ? FloatVector.zero(SPECIES) : FloatVector.fromArray(SPECIES, bias, biasOff);
            FloatVector z1 = bias == null ? z0 : FloatVector.fromArray(SPECIES, bias, biasOff + L);
            c00 = z0; c01 = z1; c10 = z0; c11 = z1; c20 = z0; c21 = z1; c30 = z0; c31 = z1;
            c40 = z0; c41 = z1; c50 = z0; c51 = z1; c60 = z0; c61 = z1; c70 = z0; c71 = z1;
        }
        for (int p = 0; p < kc; p++) {
            int bi = bOff + p * NR;
            int ai = aOff + p * 8;
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
        int o = cOff;
        c00.intoArray(c, o); c01.intoArray(c, o + L); o += ldc;
        c10.intoArray(c, o); c11.intoArray(c, o + L); o += ldc;
        c20.intoArray(c, o); c21.intoArray(c, o + L); o += ldc;
        c30.intoArray(c, o); c31.intoArray(c, o + L); o += ldc;
        c40.intoArray(c, o); c41.intoArray(c, o + L); o += ldc;
        c50.intoArray(c, o); c51.intoArray(c, o + L); o += ldc;
        c60.intoArray(c, o); c61.intoArray(c, o + L); o += ldc;
        c70.intoArray(c, o); c71.intoArray(c, o + L);
    }

    /** Whether {@link #narrowKernel} runs here: the 8-row tile, whose C rows it reads and writes under a mask. */
    static final boolean NARROW = MR == 8;
    /**
     * C[8 × cols] (+)= Ap · Bp for a partial last B panel of at most L columns: one vector per
     * row, its C lanes loaded and stored under a mask, so the tile costs half a full one and no
     * scratch copy (a product 112 wide, as the Winograd convolution's, has such a panel in every
     * block). Arguments as {@link #kernel}, with {@code cols} ≤ L; the bias, when given, holds at
     * least L values from biasOff. Requires {@link #NARROW}.
     */
    static void narrowKernel(int kc, float[] ap, int aOff, float[] bp, int bOff, float[] c, int cOff, int ldc,
                             int cols, boolean accumulate, float[] bias, int biasOff) {
        narrowRows(kc, ap, aOff, bp, bOff, c, cOff, ldc, cols, accumulate, bias, biasOff);
        narrowRows(kc, ap, aOff + 4, bp, bOff, c, cOff + 4 * ldc, ldc, cols, accumulate, bias, biasOff);
    }

    /**
     * Four rows of {@link #narrowKernel}: a method C1 can compile (all eight rows at once ran out of
     * its registers, and the method then stayed in unintrinsified code, ten times slower).
     */
    private static void narrowRows(int kc, float[] ap, int aOff, float[] bp, int bOff, float[] c, int cOff, int ldc,
                                   int cols, boolean accumulate, float[] bias, int biasOff) {
        VectorMask<Float> m = SPECIES.indexInRange(0, cols);
        FloatVector c0, c1, c2, c3;
        if (accumulate) {
            c0 = FloatVector.fromArray(SPECIES, c, cOff, m);
            c1 = FloatVector.fromArray(SPECIES, c, cOff + ldc, m);
            c2 = FloatVector.fromArray(SPECIES, c, cOff + 2 * ldc, m);
            c3 = FloatVector.fromArray(SPECIES, c, cOff + 3 * ldc, m);
        } else {
            FloatVector z = bias == null ? FloatVector.zero(SPECIES) : FloatVector.fromArray(SPECIES, bias, biasOff);
            c0 = z; c1 = z; c2 = z; c3 = z;
        }
        for (int p = 0; p < kc; p++) {
            int ai = aOff + p * MR;
            FloatVector b = FloatVector.fromArray(SPECIES, bp, bOff + p * NR);
            c0 = FloatVector.broadcast(SPECIES, ap[ai]).fma(b, c0);
            c1 = FloatVector.broadcast(SPECIES, ap[ai + 1]).fma(b, c1);
            c2 = FloatVector.broadcast(SPECIES, ap[ai + 2]).fma(b, c2);
            c3 = FloatVector.broadcast(SPECIES, ap[ai + 3]).fma(b, c3);
        }
        c0.intoArray(c, cOff, m);
        c1.intoArray(c, cOff + ldc, m);
        c2.intoArray(c, cOff + 2 * ldc, m);
        c3.intoArray(c, cOff + 3 * ldc, m);
    }

    /**
     * Adds the row sums of a packed A block (element (r, p) of panel q at aOff + q·MR·kc + p·MR + r) to
     * {@code sums[at + row]}; rows past mc are padding and skipped. Each row is summed over p in
     * order, one lane per row, so the sums are those of the scalar loop, bit for bit. Four panels
     * go at once: one panel's chain of kc dependent adds ran at the adder's latency, not its
     * throughput (1.9% of a GPT block's training step in its profile).
     */
    static void addRowSums(float[] aBuf, int aOff, int mc, int kc, float[] sums, int at) {
        int panels = (mc + MR - 1) / MR, q = 0, step = MR * kc;
        for (; q + 4 <= panels; q += 4) {
            FloatVector a0 = FloatVector.zero(PANEL), a1 = a0, a2 = a0, a3 = a0;
            for (int p = 0, d = aOff + q * step; p < kc; p++, d += MR) {
                a0 = a0.add(FloatVector.fromArray(PANEL, aBuf, d));
                a1 = a1.add(FloatVector.fromArray(PANEL, aBuf, d + step));
                a2 = a2.add(FloatVector.fromArray(PANEL, aBuf, d + 2 * step));
                a3 = a3.add(FloatVector.fromArray(PANEL, aBuf, d + 3 * step));
            }
            addPanelSums(a0, mc, q, sums, at);
            addPanelSums(a1, mc, q + 1, sums, at);
            addPanelSums(a2, mc, q + 2, sums, at);
            addPanelSums(a3, mc, q + 3, sums, at);
        }
        for (; q < panels; q++) {
            FloatVector acc = FloatVector.zero(PANEL);
            for (int p = 0, d = aOff + q * step; p < kc; p++, d += MR) acc = acc.add(FloatVector.fromArray(PANEL, aBuf, d));
            addPanelSums(acc, mc, q, sums, at);
        }
    }

    /** sums[at + q·MR + r] += lane r of panel q's sums, for the panel's rows below mc. */
    private static void addPanelSums(FloatVector acc, int mc, int q, float[] sums, int at) {
        for (int r = 0, rows = Math.min(MR, mc - q * MR); r < rows; r++) sums[at + q * MR + r] += acc.lane(r);
    }

    /** dst[d, d + n) += src[s, s + n), one vector at a time. */
    static void addInto(float[] dst, int d, float[] src, int s, int n) {
        int j = 0;
        for (int bound = SPECIES.loopBound(n); j < bound; j += L) {
            FloatVector.fromArray(SPECIES, dst, d + j).add(FloatVector.fromArray(SPECIES, src, s + j)).intoArray(dst, d + j);
        }
        for (; j < n; j++) dst[d + j] += src[s + j];
    }

    /**
     * The 4 × 2L tile: 8 accumulators, for 16-register CPUs. It accumulates from zero and adds
     * the addend's rows (row stride {@code as}) once, after the k loop: the hot method has no
     * branch and no phi of vectors, and a C tile that is not in cache no longer holds up the
     * first FMAs. Measured on Zen 3 (the whole GEMM, rounds alternated in one JVM with the
     * former kernel that started from C or the bias behind branches): +18% at n = 256, +4% at
     * 1024, +9% at 2048.
     */
    private static void kernel4(int kc, float[] ap, int aOff, float[] bp, int bOff,
                                float[] add, int ao, int as, float[] c, int cOff, int ldc) {
        FloatVector c00 = FloatVector.zero(SPECIES), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00,
                c30 = c00, c31 = c00;
        for (int p = 0; p < kc; p++) {
            int bi = bOff + p * NR;
            int ai = aOff + p * 4;
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
        }
        store(c00, c01, add, ao, c, cOff);
        store(c10, c11, add, ao + as, c, cOff + ldc);
        store(c20, c21, add, ao + 2 * as, c, cOff + 2 * ldc);
        store(c30, c31, add, ao + 3 * as, c, cOff + 3 * ldc);
    }

    /** One tile row: (lo, hi) + add[ao, ao + NR) into c[o, o + NR). */
    private static void store(FloatVector lo, FloatVector hi, float[] add, int ao, float[] c, int o) {
        lo.add(FloatVector.fromArray(SPECIES, add, ao)).intoArray(c, o);
        hi.add(FloatVector.fromArray(SPECIES, add, ao + L)).intoArray(c, o + L);
    }
}
