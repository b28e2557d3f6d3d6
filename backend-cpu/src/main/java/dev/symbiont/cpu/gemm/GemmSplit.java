package dev.symbiont.cpu.gemm;

/**
 * How {@link VectorGemm} cuts one parallel product among threads: rowParts × colParts
 * rectangles of C (one per thread), or kParts slices of k (one per thread, each with all of C),
 * whichever costs the slowest thread least. A rectangle packs A for its rows and B for its columns over all of k; a k
 * slice packs all rows of A and columns of B over its slice only, and a partial C is added
 * after the join.
 */
record GemmSplit(int rowParts, int colParts, int kParts) {
    private static final int MR = VectorGemmKernels.MR, NR = VectorGemmKernels.NR;

    /**
     * Products at least this deep may be cut along k: each of two slices then
     * spans two or more KC blocks.
     */
    static final int SPLIT_K_DEPTH = 2048;
    /**
     * Largest C (floats) a product is cut along k for: each extra slice writes a partial C of
     * this size from a fresh array and adds it back, which the cost model's per-element
     * estimate undercounts once C leaves the caches. Measured on Zen 4 in one JVM (15
     * alternated rounds): 2048³ (16 MiB of C) ran 4% faster as rectangles (won 14); the
     * weight gradients it is meant for (C of 1,024 × 256) split as before.
     */
    static final long SPLIT_K_MAX_C = 1L << 20;
    /** Packing one element costs about as much as this many multiply-adds. */
    private static final int PACK_COST = 32;
    /** Adding one element of a partial C (two loads, an add, a store, on one thread), in multiply-adds. */
    private static final int REDUCE_COST = 4;

    static GemmSplit of(int mPanels, int nPanels, int k, int threads) {
        GemmSplit best = null;
        long bestCost = Long.MAX_VALUE;
        for (int rp = 1; rp <= threads; rp++) {
            if (threads % rp != 0) {
                continue;
            }
            int cp = threads / rp;
            long rows = (long) ceilDiv(mPanels, rp) * MR, cols = (long) ceilDiv(nPanels, cp) * NR;
            long cost = (rows * cols + PACK_COST * (rows + cols)) * k;
            if (cost < bestCost) {
                best = new GemmSplit(rp, cp, 1);
                bestCost = cost;
            }
        }
        long rows = (long) mPanels * MR, cols = (long) nPanels * NR;
        if (k >= SPLIT_K_DEPTH && rows * cols <= SPLIT_K_MAX_C) {
            long slice = ceilDiv(k, threads);
            long cost = (rows * cols + PACK_COST * (rows + cols)) * slice + REDUCE_COST * rows * cols * (threads - 1);
            if (cost < bestCost) {
                best = new GemmSplit(1, 1, threads);
            }
        }
        return best;
    }

    /** x / y rounded up, for x ≥ 0 and y > 0. */
    static int ceilDiv(int x, int y) {
        return (x + y - 1) / y;
    }
}
