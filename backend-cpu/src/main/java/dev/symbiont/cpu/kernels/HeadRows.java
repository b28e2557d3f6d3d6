package dev.symbiont.cpu.kernels;

import dev.symbiont.core.Layout;

/**
 * A float32 (batch, heads, rows, cols) tensor read through its strides: row (b, h, i) starts at
 * {@code offset + b·batchStride + h·headStride + i·rowStride}, and its elements are
 * {@code colStride} apart (1 for the q, k, v and outputs the attention kernels read and write,
 * anything for a mask; a stride of 0 is a broadcast dim). A head of a (batch, seq, heads·d)
 * projection, as {@code splitHeads} sees it, has rowStride heads·d and headStride d.
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

    /** {@code data} read through a 4-D layout's offset and strides. */
    public static HeadRows of(float[] data, Layout layout) {
        return new HeadRows(data, layout.offset(), layout.stride(0), layout.stride(1), layout.stride(2), layout.stride(3));
    }
}
