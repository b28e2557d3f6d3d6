package dev.symbiont.cpu.gemm;

/**
 * The GEMM's packed panels and its micro-kernel, for kernels outside the GEMM that multiply small
 * blocks many times and can lay an operand out once for all of them: the attention kernels pack the
 * scaled queries, the key blocks and dO once per call and run their score products here.
 *
 * <p>A is packed in {@link #ROWS}-row panels (panel q, element (r, p) at
 * {@code q·ROWS·k + p·ROWS + r}), B in {@link #COLUMNS}-column panels (panel q, element (p, j) at
 * {@code q·COLUMNS·k + p·COLUMNS + j}), each zero-padded to whole panels. The products read them
 * at constant strides, which lets C2 hoist every bounds check out of the k loop — on row-major
 * blocks with variable strides (the attention tiles) it keeps two checks and eight row offsets in
 * the loop. Measured on Zen 4, one core, products as attention runs them: 64 × 128 × 64 75 → 96
 * GFLOP/s, 128 × 64 × 64 82 → 100, 64 × 64 × 128 85 → 106. Each element is the same FMA chain over
 * k either way, so the same bits. Requires the Vector API (as {@link VectorGemm} does).
 */
public final class PackedTiles {
    private PackedTiles() {}

    /** Rows of an A panel: the micro-tile's rows. */
    public static final int ROWS = VectorGemmKernels.MR;
    /** Columns of a B panel: the micro-tile's columns. */
    public static final int COLUMNS = VectorGemmKernels.NR;

    /** A (rows × k, element (i, p) at {@code a[aOff + i·rs + p·cs]}) into A panels from {@code dst[dstOff]}. */
    public static void packA(float[] a, int aOff, int rs, int cs, int rows, int k, float[] dst, int dstOff) {
        VectorPacking.packABlock(a, aOff, rs, cs, 0, rows, 0, k, dst, dstOff);
    }

    /** B (k × cols, element (p, j) at {@code b[bOff + p·rs + j·cs]}) into B panels from {@code dst[dstOff]}. */
    public static void packB(float[] b, int bOff, int rs, int cs, int k, int cols, float[] dst, int dstOff) {
        int panels = (cols + COLUMNS - 1) / COLUMNS;
        if (cs == 1) {
            VectorPacking.packB(b, bOff, rs, 0, k, 0, cols, 0, panels, dst, dstOff);
        } else if (rs == 1 && VectorPacking.TRANSPOSES) {
            VectorPacking.packBTransposed(b, bOff, cs, 0, k, 0, cols, 0, panels, dst, dstOff);
        } else {
            GemmPacking.packB(b, bOff, rs, cs, 0, k, 0, cols, COLUMNS, 0, panels, dst, dstOff);
        }
    }

    /**
     * C = A·B over whole panels: rows up to m rounded up to {@link #ROWS} and columns up to n rounded
     * up to {@link #COLUMNS} are written (from zero-padded panels, the padding is zeros), so C must
     * have room for them. {@code aOff} and {@code bOff} are where the first panels start.
     */
    public static void multiply(int m, int n, int k, float[] ap, int aOff, float[] bp, int bOff, float[] c, int cOff, int ldc) {
        for (int i = 0; i < m; i += ROWS) {
            for (int j = 0; j < n; j += COLUMNS) {
                VectorGemmKernels.kernel(k, ap, aOff + i * k, bp, bOff + j * k, c, cOff + i * ldc + j, ldc, false, null, 0);
            }
        }
    }
}
