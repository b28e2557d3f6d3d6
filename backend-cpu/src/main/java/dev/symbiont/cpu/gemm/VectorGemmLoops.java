package dev.symbiont.cpu.gemm;

/**
 * One rectangle of C on the calling thread: the blocked loops of {@link VectorGemm} (drawn in
 * its class comment) over packed blocks of A and B, the micro-kernel ({@link VectorGemmKernels})
 * on each tile of C.
 *
 * <p>A rectangle wider than one B block swaps the two inner loops: each A micro-panel (MR×KC)
 * stays in L1 while the block's B panels stream past it from L2, as in BLIS's AVX-512
 * kernels — a KC×NR B panel (32 KiB at 256 × 32) already fills Zen 4's whole L1d, so the A
 * panels streaming past evict it. Measured on Zen 4, 2 cores, KC = 256, both orders alternated
 * in one JVM (15 rounds): A panels outer won 12–13 rounds at 2048 × 1024 × 256 (+5–10%),
 * 4096 × 1024 × 256 (+4%) and 2048 × 768 × 256 (+3%), but lost 12 at 512³ (−3%) and tied at
 * n = 256. Every tile is the same kernel call either way: the results are the same bits.
 * Such a rectangle also packs its rows of A once, for its first column block, and rereads the
 * packed blocks for the others ({@link #KEPT_A_FLOATS}).
 *
 * <p>Nothing here forks or joins: {@link VectorGemm} and {@link GemmTiles} schedule the
 * rectangles, and each thread packs into its own {@link Scratch}.
 */
final class VectorGemmLoops {

    private static final int MR = VectorGemmKernels.MR, NR = VectorGemmKernels.NR;

    /**
     * Most floats of packed A a rectangle wider than one B block keeps for all its column blocks
     * instead of packing them again for each (2 MiB per thread: 2,048 rows × 256 deep). Measured
     * on Zen 4, 2 cores, both ways alternated in one JVM (9 rounds): x·Wᵀ at 2048 × 1024 × 256
     * +3.0% (won 6), 2048 × 2048 × 256 +2.1% (8), row-major B 2048 × 1024 × 256 +1.3% (8),
     * 512 × 2048 × 256 +1.5% (5); 1024³ tied (−0.7%, 4): the deeper the product, the less
     * packing weighs against its multiply-adds.
     */
    private static final long KEPT_A_FLOATS = 1L << 19;

    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    private VectorGemmLoops() {}

    /** This thread's array for a k split's partial Cs: at least {@code size} floats of unspecified contents. */
    static float[] partials(int size) {
        return SCRATCH.get().partials(size);
    }

    /**
     * C[r0:r1, c0:c1] on the calling thread, with its own packed A and B. Never joins, so the
     * thread-local scratch cannot be re-entered by a stolen task.
     */
    static void rectangle(Problem pr, VectorGemm.Blocking bl, int r0, int r1, int c0, int c1) {
        Scratch s = SCRATCH.get();
        int width = c1 - c0, rowsPacked = roundUp(r1 - r0, MR);
        boolean wide = width > bl.nc(); // more than one B block: A's micro-panels outer (see the class comment)
        // A wide rectangle packs its rows of A once and rereads them for every block after the first
        boolean keepA = wide && (long) rowsPacked * pr.k <= KEPT_A_FLOATS;
        float[] bBuf = s.b(Math.min(bl.kc(), pr.k) * roundUp(Math.min(bl.nc(), width), NR));
        float[] aBuf = s.a(keepA ? rowsPacked * pr.k : Math.min(bl.kc(), pr.k) * roundUp(Math.min(bl.mc(), r1 - r0), MR));
        for (int jc = c0; jc < c1; jc += bl.nc()) {
            int nc = Math.min(bl.nc(), c1 - jc);
            int panels = (nc + NR - 1) / NR;
            for (int pc = 0; pc < pr.k; pc += bl.kc()) {
                int kc = Math.min(bl.kc(), pr.k - pc);
                if (pr.bCs == 1) {
                    VectorPacking.packB(pr.b, pr.bOff, pr.bRs, pc, kc, jc, nc, 0, panels, bBuf, 0);
                } else if (pr.bRs == 1 && VectorPacking.TRANSPOSES) {
                    VectorPacking.packBTransposed(pr.b, pr.bOff, pr.bCs, pc, kc, jc, nc, 0, panels, bBuf, 0);
                } else {
                    GemmPacking.packB(pr.b, pr.bOff, pr.bRs, pr.bCs, pc, kc, jc, nc, NR, 0, panels, bBuf, 0);
                }
                // kept, the (pc, ic) block of A sits at pc·rowsPacked + (ic - r0)·kc (earlier k blocks are all bl.kc deep)
                computeRows(pr, s, aBuf, keepA ? pc * rowsPacked : -1, !keepA || jc == c0, bBuf, r0, r1, bl.mc(), jc, nc, pc, kc, wide);
            }
        }
    }

    /**
     * Rows [r0, r1) of C × the packed (jc, pc) block of B. With {@code keptAt} ≥ 0 the rectangle's
     * A blocks live in aBuf from there, packed on its first column block ({@code packA}); with -1
     * each A block is packed at 0 as it is reached.
     */
    private static void computeRows(Problem pr, Scratch s, float[] aBuf, int keptAt, boolean packA, float[] bBuf,
                                    int r0, int r1, int mcMax, int jc, int nc, int pc, int kc, boolean aPanelsOuter) {
        int panels = (nc + NR - 1) / NR;
        boolean accumulate = pc > 0 || pr.addToC;
        for (int ic = r0; ic < r1; ic += mcMax) {
            int mc = Math.min(mcMax, r1 - ic);
            int aBase = keptAt < 0 ? 0 : keptAt + (ic - r0) * kc;
            if (packA) {
                VectorPacking.packABlock(pr.a, pr.aOff, pr.aRs, pr.aCs, ic, mc, pc, kc, aBuf, aBase);
                if (pr.sums != null && jc == 0) {
                    VectorGemmKernels.addRowSums(aBuf, aBase, mc, kc, pr.sums, pr.sumsOff + ic);
                }
            }
            float[] bias = accumulate ? null : pr.bias;
            if (aPanelsOuter) { // a wide rectangle: each A micro-panel stays in L1 (see the class comment)
                for (int ir = 0; ir < mc; ir += MR) {
                    for (int q = 0; q < panels; q++) tile(pr, s, aBuf, bBuf, ic + ir, mc - ir, aBase + ir * kc, jc, nc, q, kc, accumulate, bias);
                }
            } else {
                for (int q = 0; q < panels; q++) {
                    for (int ir = 0; ir < mc; ir += MR) tile(pr, s, aBuf, bBuf, ic + ir, mc - ir, aBase + ir * kc, jc, nc, q, kc, accumulate, bias);
                }
            }
        }
    }

    /**
     * The micro-tile of C at row {@code row} (rowsLeft rows of the A block from there) and B panel
     * q of the (jc, nc) block: the kernel on C itself, or through scratch at an edge.
     */
    private static void tile(Problem pr, Scratch s, float[] aBuf, float[] bBuf, int row, int rowsLeft, int aAt,
                             int jc, int nc, int q, int kc, boolean accumulate, float[] bias) {
        int j = jc + q * NR, cols = Math.min(NR, nc - q * NR), rows = Math.min(MR, rowsLeft);
        int bAt = q * NR * kc;
        int cAt = pr.cOff + row * pr.ldc + j;
        if (rows == MR && cols == NR) {
            VectorGemmKernels.kernel(kc, aBuf, aAt, bBuf, bAt, pr.c, cAt, pr.ldc, accumulate, bias, pr.biasOff + j);
            return;
        }
        float[] edgeBias = bias == null ? null : s.edgeBias(bias, pr.biasOff + j, cols);
        if (rows == MR && cols <= VectorGemmKernels.L && VectorGemmKernels.NARROW) {
            VectorGemmKernels.narrowKernel(kc, aBuf, aAt, bBuf, bAt, pr.c, cAt, pr.ldc, cols, accumulate, edgeBias, 0);
        } else {
            edgeTile(kc, aBuf, aAt, bBuf, bAt, pr, cAt, rows, cols, accumulate, s.tile, edgeBias);
        }
    }

    /** A partial tile: the kernel writes a full scratch tile, of which rows×cols go to C. */
    private static void edgeTile(int kc, float[] aBuf, int aAt, float[] bBuf, int bAt, Problem pr,
                                 int cAt, int rows, int cols, boolean accumulate, float[] tile, float[] bias) {
        VectorGemmKernels.kernel(kc, aBuf, aAt, bBuf, bAt, tile, 0, NR, false, bias, 0);
        float[] c = pr.c;
        for (int r = 0; r < rows; r++) {
            int d = cAt + r * pr.ldc, t = r * NR;
            if (accumulate) {
                for (int j = 0; j < cols; j++) {
                    c[d + j] += tile[t + j];
                }
            } else {
                System.arraycopy(tile, t, c, d, cols);
            }
        }
    }

    /**
     * One product as the loops read it: C (m × n, row stride ldc) = A (m × k) · B (k × n), each
     * operand at an offset with row and column strides; the bias (n, or null) is where C's first
     * k block starts, the row sums of A (m, or null) are added to {@code sums}, and with
     * {@code addToC} the product is added to C.
     */
    record Problem(int m, int n, int k,
                           float[] a, int aOff, int aRs, int aCs,
                           float[] b, int bOff, int bRs, int bCs,
                           float[] c, int cOff, int ldc,
                           float[] bias, int biasOff, float[] sums, int sumsOff, boolean addToC) {
        /** A product that overwrites C ({@code addToC} false). */
        Problem(int m, int n, int k, float[] a, int aOff, int aRs, int aCs, float[] b, int bOff, int bRs, int bCs,
                float[] c, int cOff, int ldc, float[] bias, int biasOff, float[] sums, int sumsOff) {
            this(m, n, k, a, aOff, aRs, aCs, b, bOff, bRs, bCs, c, cOff, ldc, bias, biasOff, sums, sumsOff, false);
        }

        long flops() {
            return 2L * m * n * k;
        }

        /** True (and C already written: zeroed, or left as it is when adding to it) when there is nothing to multiply. */
        boolean trivial() {
            if (m == 0 || n == 0) {
                return true;
            }
            if (k == 0) {
                for (int i = 0; !addToC && i < m; i++) {
                    java.util.Arrays.fill(c, cOff + i * ldc, cOff + i * ldc + n, 0f);
                }
                return true;
            }
            return false;
        }
    }

    /** Per-thread packing buffers. Only code that never joins touches them, so no task can steal them. */
    private static final class Scratch {
        private float[] a = new float[0];
        final float[] tile = new float[MR * NR];
        private final float[] bias = new float[NR];
        private float[] b = new float[0];

        /** bias[off, off + cols) padded with zeros to NR: the bias of an edge tile. */
        float[] edgeBias(float[] from, int off, int cols) {
            System.arraycopy(from, off, bias, 0, cols);
            java.util.Arrays.fill(bias, cols, NR, 0f);
            return bias;
        }

        float[] a(int size) {
            if (a.length < size) {
                a = new float[size];
            }
            return a;
        }

        float[] b(int size) {
            if (b.length < size) {
                b = new float[size];
            }
            return b;
        }

        private float[] partials = new float[0];

        /** At least {@code size} floats of unspecified contents for a k split's partial Cs. */
        float[] partials(int size) {
            if (partials.length < size) {
                partials = new float[size];
            }
            return partials;
        }
    }

    private static int roundUp(int x, int to) {
        return (x + to - 1) / to * to;
    }
}
