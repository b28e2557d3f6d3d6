package dev.symbiont.cpu.gemm;

/**
 * Copies strided blocks of A and B into the contiguous, micro-kernel-ordered panels that
 * {@link VectorGemmKernels#kernel} streams through. Packing is where arbitrary strides and
 * transposes are absorbed, and where edge panels are padded with zeros so the micro-kernel
 * only ever sees full tiles.
 *
 * <p>Plain Java, no Vector API: the scalar twin of {@link VectorPacking}, which
 * {@link VectorGemm} uses for the layouts a training step hands it (row-major and transposed
 * A, row-major B); this class packs the rest (strided operands, transposed B).
 */
final class GemmPacking {

    private GemmPacking() {}

    /**
     * Packs rows {@code [i0, i0+mc)} × columns {@code [p0, p0+kc)} of A into {@code mr}-row
     * micro-panels: panel {@code q}, element (r, p) lands at {@code q*mr*kc + p*mr + r}.
     * Rows past {@code mc} in the last panel are zero.
     */
    static void packA(float[] a, int aOff, int rs, int cs, int i0, int mc, int p0, int kc,
                      int mr, float[] dst) {
        packA(a, aOff, rs, cs, i0, mc, p0, kc, mr, dst, 0);
    }

    /** As above, the panels starting at {@code dst[dstOff]}. */
    static void packA(float[] a, int aOff, int rs, int cs, int i0, int mc, int p0, int kc,
                      int mr, float[] dst, int dstOff) {
        int panels = (mc + mr - 1) / mr;
        for (int q = 0; q < panels; q++) {
            int base = dstOff + q * mr * kc;
            int rows = Math.min(mr, mc - q * mr);
            int rowStart = aOff + (i0 + q * mr) * rs + p0 * cs;
            if (cs == 1) {
                for (int r = 0; r < rows; r++) {
                    int src = rowStart + r * rs;
                    for (int p = 0, d = base + r; p < kc; p++, d += mr) {
                        dst[d] = a[src + p];
                    }
                }
            } else if (rs == 1 && rows == mr) {
                // transposed A: the mr rows of a k step are contiguous in memory
                for (int p = 0; p < kc; p++) {
                    System.arraycopy(a, rowStart + p * cs, dst, base + p * mr, mr);
                }
                continue;
            } else {
                for (int r = 0; r < rows; r++) {
                    int src = rowStart + r * rs;
                    for (int p = 0, d = base + r; p < kc; p++, d += mr) {
                        dst[d] = a[src + p * cs];
                    }
                }
            }
            for (int r = rows; r < mr; r++) {
                for (int p = 0, d = base + r; p < kc; p++, d += mr) {
                    dst[d] = 0f;
                }
            }
        }
    }

    /**
     * Packs the B micro-panels {@code [q0, q1)} of the block rows {@code [p0, p0+kc)} ×
     * columns {@code [j0, j0+nc)}: panel {@code q}, element (p, j) lands at
     * {@code dstOff + q*nr*kc + p*nr + j}. Columns past {@code nc} in the last panel are zero.
     */
    static void packB(float[] b, int bOff, int rs, int cs, int p0, int kc, int j0, int nc,
                      int nr, int q0, int q1, float[] dst, int dstOff) {
        for (int q = q0; q < q1; q++) {
            int base = dstOff + q * nr * kc;
            int cols = Math.min(nr, nc - q * nr);
            int colStart = bOff + p0 * rs + (j0 + q * nr) * cs;
            if (cs == 1) {
                for (int p = 0; p < kc; p++) {
                    int d = base + p * nr;
                    System.arraycopy(b, colStart + p * rs, dst, d, cols);
                    for (int j = cols; j < nr; j++) {
                        dst[d + j] = 0f;
                    }
                }
            } else {
                // transposed or strided B: walk each column along k
                for (int j = 0; j < cols; j++) {
                    int src = colStart + j * cs;
                    for (int p = 0, d = base + j; p < kc; p++, d += nr) {
                        dst[d] = b[src + p * rs];
                    }
                }
                for (int j = cols; j < nr; j++) {
                    for (int p = 0, d = base + j; p < kc; p++, d += nr) {
                        dst[d] = 0f;
                    }
                }
            }
        }
    }
}
