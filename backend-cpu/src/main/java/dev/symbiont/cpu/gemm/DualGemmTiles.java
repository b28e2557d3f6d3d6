package dev.symbiont.cpu.gemm;

import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.gemm.VectorGemmKernels.SPECIES;

/**
 * Two products that share A, C1 = A·B1 and C2 = A·B2 (an expert's gate and up projections,
 * x·W1ᵀ and x·W3ᵀ), computed as one GEMM whose B panels hold {@link #PAIR} columns of B1 beside
 * the same columns of B2 ({@link VectorPacking#packBPaired}). Each finished micro-tile is handed
 * to an {@link Epilogue} while it is in L1 — SwiGLU's silu(C1) ⊙ C2 — so neither product is
 * written out and read back for the activation. Only a product deeper than one block (k &gt; KC)
 * writes its partial sums, into two arrays the caller gives.
 *
 * <p>As {@link GemmTiles}, the product is cut into tiles a caller schedules itself, each run on
 * the calling thread with its own packed blocks. The blocking is the vector GEMM's (KC, MC, and
 * a B block of NC packed columns: NC / 2 output columns). Each element is summed in the order
 * {@link VectorGemm} sums it: where one block covers k, the same bits as two separate products.
 */
public final class DualGemmTiles {
    /** Output columns per micro-tile: one vector of C1's, one of C2's. */
    public static final int PAIR = VectorGemmKernels.L;
    /** Row stride of the tile an epilogue gets: C1's PAIR columns, then C2's. */
    public static final int TILE_STRIDE = VectorGemmKernels.NR;
    /** Rows of C per tile, as {@link GemmTiles#ROWS}. */
    public static final int ROWS = GemmTiles.ROWS;
    /** Output columns per tile: one B block of NC packed columns. */
    public static final int COLS = VectorGemm.NC / 2;

    private static final int MR = VectorGemmKernels.MR, NR = VectorGemmKernels.NR, KC = VectorGemm.KC, MC = VectorGemm.MC;
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    /** What happens to each finished tile of the two products. */
    @FunctionalInterface
    public interface Epilogue {
        /**
         * @param tile row r's C1 values at {@code r·TILE_STRIDE + j} and C2 values at
         *             {@code r·TILE_STRIDE + PAIR + j}, j &lt; cols
         * @param row  the tile's first row of C
         * @param col  its first column
         * @param rows rows of the tile, ≤ MR
         * @param cols columns of the tile, ≤ {@link #PAIR}
         */
        void apply(float[] tile, int row, int col, int rows, int cols);
    }

    private final int m, n, k;
    private final float[] a, b1, b2, c1, c2;
    private final int aOff, aRs, aCs, b1Off, b1Rs, b1Cs, b2Off, b2Rs, b2Cs, cOff, ldc;
    private final Epilogue epilogue;
    private final int rowTiles, colTiles;

    private DualGemmTiles(int m, int n, int k, float[] a, int aOff, int aRs, int aCs,
                          float[] b1, int b1Off, int b1Rs, int b1Cs, float[] b2, int b2Off, int b2Rs, int b2Cs,
                          float[] c1, float[] c2, int cOff, int ldc, Epilogue epilogue) {
        this.m = m; this.n = n; this.k = k;
        this.a = a; this.aOff = aOff; this.aRs = aRs; this.aCs = aCs;
        this.b1 = b1; this.b1Off = b1Off; this.b1Rs = b1Rs; this.b1Cs = b1Cs;
        this.b2 = b2; this.b2Off = b2Off; this.b2Rs = b2Rs; this.b2Cs = b2Cs;
        this.c1 = c1; this.c2 = c2; this.cOff = cOff; this.ldc = ldc;
        this.epilogue = epilogue;
        this.rowTiles = (m + ROWS - 1) / ROWS;
        this.colTiles = (n + COLS - 1) / COLS;
    }

    /** Whether a product of depth k needs arrays for its partial sums (k spans more than one block). */
    public static boolean needsPartials(int k) {
        return k > KC;
    }

    /**
     * The tiles of C1 (m × n) = A (m × k) · B1 and C2 = A · B2, operands as in {@link Gemm#sgemm}
     * (B1 and B2 of one shape, each with its own strides). When {@link #needsPartials}(k), c1 and
     * c2 (m × n each, row stride ldc from cOff) hold the partial sums between blocks (what they
     * hold afterwards is unspecified); otherwise they may be null. Checked here, before any tile runs.
     *
     * @throws IllegalArgumentException when k &lt; 1, a size is negative, ldc &lt; n, or c1 or c2 is missing where it is needed
     * @throws IndexOutOfBoundsException when an operand reaches outside its array
     */
    public static DualGemmTiles of(int m, int n, int k, float[] a, int aOff, int aRowStride, int aColStride,
                                   float[] b1, int b1Off, int b1RowStride, int b1ColStride,
                                   float[] b2, int b2Off, int b2RowStride, int b2ColStride,
                                   float[] c1, float[] c2, int cOff, int ldc, Epilogue epilogue) {
        if (k < 1) throw new IllegalArgumentException("DualGemmTiles: k must be ≥ 1, got " + k);
        if ((c1 == null || c2 == null) && needsPartials(k)) {
            throw new IllegalArgumentException("DualGemmTiles: k = " + k + " spans more than one block of " + KC
                    + ": c1 and c2 must be given to hold the partial sums");
        }
        if (m < 0 || n < 0) throw new IllegalArgumentException("DualGemmTiles: negative size m=" + m + " n=" + n);
        if (c1 != null && c2 != null && ldc < n) throw new IllegalArgumentException("DualGemmTiles: ldc=" + ldc + " < n=" + n);
        if (m > 0 && n > 0) {
            GemmChecks.checkExtent("A", a, aOff, m, k, aRowStride, aColStride);
            GemmChecks.checkExtent("B1", b1, b1Off, k, n, b1RowStride, b1ColStride);
            GemmChecks.checkExtent("B2", b2, b2Off, k, n, b2RowStride, b2ColStride);
            if (needsPartials(k)) {
                GemmChecks.checkExtent("c1", c1, cOff, m, n, ldc, 1);
                GemmChecks.checkExtent("c2", c2, cOff, m, n, ldc, 1);
            }
        }
        return new DualGemmTiles(m, n, k, a, aOff, aRowStride, aColStride, b1, b1Off, b1RowStride, b1ColStride,
                b2, b2Off, b2RowStride, b2ColStride, c1, c2, cOff, ldc, epilogue);
    }

    /** How many tiles there are; tile t is row tile t / colTiles, column tile t % colTiles. */
    public int count() {
        return rowTiles * colTiles;
    }

    /** The multiply-adds of tile t (both products), for scheduling the largest first. */
    public long work(int t) {
        int[] r = bounds(t);
        return 2L * (r[1] - r[0]) * (r[3] - r[2]) * k;
    }

    /** Computes tile t on the calling thread, handing each finished micro-tile to the epilogue. */
    public void run(int t) {
        int[] r = bounds(t);
        Scratch s = SCRATCH.get();
        float[] bBuf = s.b(Math.min(KC, k) * 2 * roundUp(r[3] - r[2], PAIR));
        float[] aBuf = s.a(Math.min(KC, k) * roundUp(Math.min(MC, r[1] - r[0]), MR));
        int cols = r[3] - r[2];
        for (int pc = 0; pc < k; pc += KC) {
            int kc = Math.min(KC, k - pc);
            boolean last = pc + kc == k;
            VectorPacking.packBPaired(b1, b1Off, b1Rs, b1Cs, b2, b2Off, b2Rs, b2Cs, pc, kc, r[2], cols, bBuf);
            for (int ic = r[0]; ic < r[1]; ic += MC) {
                int mc = Math.min(MC, r[1] - ic);
                VectorPacking.packABlock(a, aOff, aRs, aCs, ic, mc, pc, kc, aBuf, 0);
                for (int q = 0; q * PAIR < cols; q++) {
                    for (int ir = 0; ir < mc; ir += MR) {
                        tile(s.tile, aBuf, ir * kc, bBuf, q * NR * kc, kc, pc > 0, last,
                                ic + ir, r[2] + q * PAIR, Math.min(MR, mc - ir), Math.min(PAIR, cols - q * PAIR));
                    }
                }
            }
        }
    }

    /** One micro-tile into the scratch tile: partial sums in from c1 and c2, out to them, or to the epilogue. */
    private void tile(float[] tile, float[] aBuf, int aAt, float[] bBuf, int bAt, int kc, boolean partial, boolean last,
                      int row, int col, int rows, int cols) {
        if (partial) copy(rows, cols, true, tile, row, col);
        VectorGemmKernels.kernel(kc, aBuf, aAt, bBuf, bAt, tile, 0, NR, partial, null, 0);
        if (last) epilogue.apply(tile, row, col, rows, cols);
        else copy(rows, cols, false, tile, row, col);
    }

    /** The tile's rows × cols of partial sums in from c1 and c2 ({@code in}) or out to them; a whole row is one vector each. */
    private void copy(int rows, int cols, boolean in, float[] tile, int row, int col) {
        for (int i = 0; i < rows; i++) {
            int c = cOff + (row + i) * ldc + col, t = i * NR;
            if (cols == PAIR && in) {
                FloatVector.fromArray(SPECIES, c1, c).intoArray(tile, t);
                FloatVector.fromArray(SPECIES, c2, c).intoArray(tile, t + PAIR);
            } else if (cols == PAIR) {
                FloatVector.fromArray(SPECIES, tile, t).intoArray(c1, c);
                FloatVector.fromArray(SPECIES, tile, t + PAIR).intoArray(c2, c);
            } else if (in) {
                System.arraycopy(c1, c, tile, t, cols);
                System.arraycopy(c2, c, tile, t + PAIR, cols);
            } else {
                System.arraycopy(tile, t, c1, c, cols);
                System.arraycopy(tile, t + PAIR, c2, c, cols);
            }
        }
    }

    /** {r0, r1, c0, c1} of tile t. */
    private int[] bounds(int t) {
        if (t < 0 || t >= count()) throw new IndexOutOfBoundsException("DualGemmTiles: tile " + t + " of " + count());
        int i = t / colTiles, j = t % colTiles;
        return new int[] {i * ROWS, Math.min(m, (i + 1) * ROWS), j * COLS, Math.min(n, (j + 1) * COLS)};
    }

    private static int roundUp(int x, int to) {
        return (x + to - 1) / to * to;
    }

    /** Per-thread packing buffers and the tile; only code that never joins touches them. */
    private static final class Scratch {
        final float[] tile = new float[MR * NR];
        private float[] a = new float[0], b = new float[0];

        float[] a(int size) {
            if (a.length < size) a = new float[size];
            return a;
        }

        float[] b(int size) {
            if (b.length < size) b = new float[size];
            return b;
        }
    }
}
