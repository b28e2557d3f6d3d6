package dev.symbiont.cpu.gemm;

/**
 * One product C = A·B of the vector GEMM cut into tiles of C that a caller schedules itself:
 * {@link #ROWS} × {@link #COLS} blocks, each computed on the calling thread by the GEMM's own
 * blocked loop (pack a KC × NC block of B into micro-panels, pack MC × KC blocks of A, run the
 * micro-kernel over them) without forking or joining. A grouped GEMM makes the tiles of all its
 * experts the work items of one parallel computation, so a small expert does not leave a core
 * idle and a large one is split.
 *
 * <p>Tile edges fall on micro-tile multiples (ROWS of MR, COLS of NR), so every element of C is
 * summed in the order {@link VectorGemm#sgemm} sums it on one thread, or on several when it
 * cuts C into rectangles: the result depends neither on which thread runs a tile nor on the
 * order of the tiles. (A parallel {@code sgemm} of {@code GemmSplit.SPLIT_K_DEPTH} or more
 * k steps may cut k instead and add the slices, which a tile never does.)
 */
public final class GemmTiles {
    /**
     * Rows of C per tile: eight A blocks, so a tile packs its B block once for 1,024 rows — an
     * MoE expert's whole group at the benchmark's sizes (2,048 tokens, top-2 of 8 experts).
     * Measured against 256-row tiles in one JVM, rounds alternated (Zen 4, 2 cores, MoE layer
     * forward + backward): medians 168.5 / 154.5 ms against 180.1 / 156.1. Enough tiles remain
     * for a few cores: experts × column tiles.
     */
    public static final int ROWS = 8 * VectorGemm.MC;
    /** Columns of C per tile: one B block. */
    public static final int COLS = VectorGemm.NC;

    private final VectorGemmLoops.Problem pr;
    private final int rowTiles, colTiles;

    private GemmTiles(VectorGemmLoops.Problem pr) {
        this.pr = pr;
        boolean empty = pr.trivial(); // writes C when k = 0
        this.rowTiles = empty ? 0 : ceilDiv(pr.m(), ROWS);
        this.colTiles = empty ? 0 : ceilDiv(pr.n(), COLS);
    }

    /** Whether {@code gemm} is the vector GEMM, whose tiles this class computes. */
    public static boolean supports(Gemm gemm) {
        return gemm instanceof VectorGemm;
    }

    /**
     * The tiles of C (m × n, row stride ldc) = A (m × k) · B (k × n), or C += A·B when
     * {@code accumulate}; operands as in {@link Gemm#sgemm}, checked here, before any tile runs.
     * When k = 0 there are no tiles, and C is zeroed now (left as it is when accumulating).
     *
     * @throws IndexOutOfBoundsException when an operand reaches outside its array
     */
    public static GemmTiles of(int m, int n, int k,
                               float[] a, int aOff, int aRowStride, int aColStride,
                               float[] b, int bOff, int bRowStride, int bColStride,
                               float[] c, int cOff, int ldc, boolean accumulate) {
        GemmChecks.check(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride, c, cOff, ldc);
        return new GemmTiles(new VectorGemmLoops.Problem(m, n, k, a, aOff, aRowStride, aColStride, b, bOff, bRowStride, bColStride,
                c, cOff, ldc, null, 0, null, 0, accumulate));
    }

    /** How many tiles there are; tile t is row tile t / colTiles, column tile t % colTiles. */
    public int count() {
        return rowTiles * colTiles;
    }

    /** The multiply-adds of tile t, for scheduling the largest first. */
    public long work(int t) {
        int[] r = bounds(t);
        return (long) (r[1] - r[0]) * (r[3] - r[2]) * pr.k();
    }

    /** Computes tile t of C on the calling thread. */
    public void run(int t) {
        int[] r = bounds(t);
        VectorGemmLoops.rectangle(pr, VectorGemm.Blocking.DEFAULT, r[0], r[1], r[2], r[3]);
    }

    /** {r0, r1, c0, c1} of tile t. */
    private int[] bounds(int t) {
        if (t < 0 || t >= count()) throw new IndexOutOfBoundsException("GemmTiles: tile " + t + " of " + count());
        int i = t / colTiles, j = t % colTiles;
        return new int[] {i * ROWS, Math.min(pr.m(), (i + 1) * ROWS), j * COLS, Math.min(pr.n(), (j + 1) * COLS)};
    }

    private static int ceilDiv(int x, int y) {
        return (x + y - 1) / y;
    }
}
