package dev.symbiont.cpu.kernels;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.heap.HeapStorage;

/**
 * scatter_add of whole rows: base (num, dim) += src (n, dim) at rows index[0..n), the shape an
 * embedding's backward takes (index_select's gradient: a 1-D id per row, expanded along the
 * row with stride 0). The reference walks and bounds-checks the expanded index element by
 * element; here each row's id is read and checked once and the row added in one loop.
 * Accumulates in double in the reference's order (rows in turn, then columns), so the result
 * is the reference's to the bit.
 */
public final class RowScatter {
    private RowScatter() {}

    /** Whether the operands have that shape: rank 2, dim 0, an index constant along each row, float32 heap data. */
    public static boolean applies(int dim, Layout base, HeapStorage index, Layout indexLayout, HeapStorage src, Layout srcLayout) {
        return dim == 0 && base.rank() == 2 && indexLayout.rank() == 2 && srcLayout.rank() == 2
                && (indexLayout.stride(1) == 0 || indexLayout.size(1) <= 1)
                && indexLayout.size(1) == base.size(1) && srcLayout.size(0) == indexLayout.size(0) && srcLayout.size(1) == base.size(1)
                && (index.dtype() == DType.INT64 || index.dtype() == DType.INT32) && src.dtype() == DType.FLOAT32;
    }

    /**
     * The row ids, or null when one is outside [0, rows): the caller then runs the reference,
     * whose error names the position.
     */
    public static int[] rowIds(HeapStorage index, Layout layout, int rows) {
        int n = layout.size(0), at = layout.offset(), stride = layout.stride(0);
        int[] ids = new int[n];
        for (int r = 0; r < n; r++, at += stride) {
            long v = index.dtype() == DType.INT64 ? index.longs()[at] : index.ints()[at];
            if (v < 0 || v >= rows) return null;
            ids[r] = (int) v;
        }
        return ids;
    }

    /** out (contiguous, base's shape) = base + Σ src rows at their ids. */
    public static void add(float[] base, Layout baseLayout, int[] ids, float[] src, Layout srcLayout, float[] out) {
        int rows = baseLayout.size(0), cols = baseLayout.size(1);
        double[] acc = new double[rows * cols];
        for (int r = 0; r < rows; r++) {
            int from = baseLayout.offset() + r * baseLayout.stride(0);
            for (int j = 0; j < cols; j++) acc[r * cols + j] = base[from + j * baseLayout.stride(1)];
        }
        int s0 = srcLayout.stride(0), s1 = srcLayout.stride(1);
        for (int r = 0; r < ids.length; r++) {
            int to = ids[r] * cols, from = srcLayout.offset() + r * s0;
            for (int j = 0; j < cols; j++) acc[to + j] += src[from + j * s1];
        }
        for (int i = 0; i < acc.length; i++) out[i] = (float) acc[i];
    }
}
