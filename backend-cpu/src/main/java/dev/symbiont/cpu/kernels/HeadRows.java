package dev.symbiont.cpu.kernels;

/**
 * A float32 (batch, heads, rows, cols) tensor read through its strides: row (b, h, i) starts at
 * {@code offset + b·batchStride + h·headStride + i·rowStride}, and its elements are
 * {@code colStride} apart (1 for the q, k, v the attention kernels read, anything for a mask;
 * a stride of 0 is a broadcast dim).
 */
public record HeadRows(float[] data, int offset, int batchStride, int headStride, int rowStride, int colStride) {

    /** Where row i of head h in batch b starts. */
    public int row(int b, int h, int i) {
        return offset + b * batchStride + h * headStride + i * rowStride;
    }

    /** A contiguous (batch, heads, rows, cols) array. */
    public static HeadRows contiguous(float[] data, int heads, int rows, int cols) {
        return new HeadRows(data, 0, heads * rows * cols, rows * cols, cols, 1);
    }
}
