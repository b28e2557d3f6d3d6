package dev.symbiont.cpu.gemm;

import java.util.Random;

/**
 * A rows×cols test matrix stored with a given layout inside a larger array, so the GEMMs see
 * offsets, transposes and arbitrary strides. Unused slots hold a sentinel that would poison
 * any result that read them.
 */
record StridedMatrix(float[] data, int off, int rowStride, int colStride) {

    enum Layout {
        /** rs = cols, cs = 1, offset 0. */
        ROW_MAJOR,
        /** Stored as the transpose: rs = 1, cs = rows. */
        TRANSPOSED,
        /** Row-major with padded rows and a leading offset. */
        PADDED,
        /** Neither stride is 1 (every other column, padded rows), with an offset. */
        STRIDED
    }

    static StridedMatrix random(int rows, int cols, Layout layout, Random rnd) {
        int off, rs, cs;
        switch (layout) {
            case ROW_MAJOR -> { off = 0; rs = cols; cs = 1; }
            case TRANSPOSED -> { off = 0; rs = 1; cs = rows; }
            case PADDED -> { off = 5; rs = cols + 3; cs = 1; }
            case STRIDED -> { off = 3; rs = 2 * cols + 1; cs = 2; }
            default -> throw new AssertionError(layout);
        }
        int extent = off + Math.max(0, rows - 1) * rs + Math.max(0, cols - 1) * cs + 1;
        float[] data = new float[Math.max(extent, 1) + 7];
        java.util.Arrays.fill(data, Float.NaN);
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < cols; j++) {
                data[off + i * rs + j * cs] = rnd.nextFloat() * 2 - 1;
            }
        }
        return new StridedMatrix(data, off, rs, cs);
    }
}
