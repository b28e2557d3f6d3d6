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

    /** True when rows of {@code cols} floats, heads and batches lie back to back from the offset. */
    public boolean isPacked(int heads, int rows, int cols) {
        return colStride == 1 && rowStride == cols && headStride == rows * cols && batchStride == heads * rows * cols;
    }

    /**
     * These (batch, heads, rows, cols) elements in a fresh contiguous array, or this when they
     * already lie so. Worth its one pass where a kernel rereads the rows many times: the rows of a
     * head split from a (batch, seq, heads·d) projection are heads·d floats apart, and a block of
     * them read as a product's operand maps onto a few L1 sets (at 2 KiB apart, 8 of Zen 4's 64).
     */
    public HeadRows packed(int batch, int heads, int rows, int cols) {
        return packed(batch, heads, rows, cols, FloatScratch.FRESH);
    }

    /** {@link #packed(int, int, int, int)} into an array from {@code scratch}. */
    public HeadRows packed(int batch, int heads, int rows, int cols, FloatScratch scratch) {
        if (isPacked(heads, rows, cols)) {
            return this;
        }
        int[] shape = {batch, heads, rows, cols};
        Layout layout = new Layout(shape, new int[] {batchStride, headStride, rowStride, colStride}, offset);
        float[] out = scratch.empty(layout.numel()); // every element copied
        StridedCopy.copy(data, layout, out, Layout.contiguous(shape));
        return contiguous(out, heads, rows, cols);
    }

    /** {@code data} read through a 4-D layout's offset and strides. */
    public static HeadRows of(float[] data, Layout layout) {
        return new HeadRows(data, layout.offset(), layout.stride(0), layout.stride(1), layout.stride(2), layout.stride(3));
    }
}
