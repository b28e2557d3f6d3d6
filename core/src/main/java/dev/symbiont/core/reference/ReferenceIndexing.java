package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * indexSelect, gather and scatterAdd. Every index is read and range-checked before anything
 * is computed, so a bad index throws an {@link IndexOutOfBoundsException} naming the op, the
 * value, its position, the dim and the size, and never an ArrayIndexOutOfBoundsException.
 */
final class ReferenceIndexing {
    private ReferenceIndexing() {}

    /**
     * The index values in row-major order of {@code layout}, each checked to lie in
     * [0, size) for dim {@code dim}. The index dtype must be int32 or int64.
     */
    static int[] checkedIndices(String op, Object index, DType dtype, Layout layout, int dim, int size) {
        if (dtype != DType.INT32 && dtype != DType.INT64) {
            throw new IllegalArgumentException(op + ": index must be int32 or int64, got " + dtype);
        }
        int n = layout.numel();
        int[] out = new int[n];
        StridedWalker w = new StridedWalker(layout);
        for (int i = 0; i < n; i++) {
            long v = ReferenceCopies.readLong(index, dtype, w.next());
            if (v < 0 || v >= size) {
                throw new IndexOutOfBoundsException(op + ": index " + v + " at position "
                        + Arrays.toString(StridedWalker.unravel(i, layout.shape())) + " out of range for dim "
                        + dim + " of size " + size);
            }
            out[i] = (int) v;
        }
        return out;
    }

    /**
     * Backend.checkIndex: every id of {@code ids} in [0, bound) or equal to {@code ignore};
     * writes the ids (ignored ones as 0) to {@code safe} and 1 or 0 to {@code keep}.
     */
    static void checkIds(String op, Object ids, DType dtype, Layout layout, long bound, OptionalLong ignore,
                         long[] safe, float[] keep) {
        if (dtype != DType.INT32 && dtype != DType.INT64) {
            throw new IllegalArgumentException(op + ": ids must be int32 or int64, got " + dtype);
        }
        StridedWalker w = new StridedWalker(layout);
        for (int i = 0; i < safe.length; i++) {
            long v = ReferenceCopies.readLong(ids, dtype, w.next());
            if (ignore.isPresent() && v == ignore.getAsLong()) continue;
            if (v < 0 || v >= bound) {
                throw new IndexOutOfBoundsException(op + ": index " + v + " at position "
                        + Arrays.toString(StridedWalker.unravel(i, layout.shape())) + " is outside [0, " + bound + ")"
                        + (ignore.isPresent() ? " and is not the ignore index " + ignore.getAsLong() : ""));
            }
            safe[i] = v;
            keep[i] = 1f;
        }
    }

    /** x with dim {@code dim} replaced by the entries picked by the 1-D index; contiguous. */
    static Object indexSelect(Object x, DType dtype, Layout xLayout, int dim,
                              Object index, DType indexType, Layout indexLayout) {
        if (indexLayout.rank() > 1) {
            throw new IllegalArgumentException("indexSelect: index must be 1-D, got shape "
                    + Arrays.toString(indexLayout.shape()));
        }
        int[] idx = checkedIndices("indexSelect", index, indexType, indexLayout, dim, xLayout.size(dim));
        int[] outShape = xLayout.shape().clone();
        outShape[dim] = idx.length;
        Layout outLayout = Layout.contiguous(outShape);
        Object out = ReferenceCopies.newArray(dtype, outLayout.numel());
        ReferenceCopies.ElementMover move = ReferenceCopies.mover(x, out);
        int xStride = xLayout.stride(dim), outStride = outLayout.stride(dim);
        StridedWalker xs = new StridedWalker(StridedWalker.outer(xLayout, dim));
        StridedWalker os = new StridedWalker(StridedWalker.outer(outLayout, dim));
        while (xs.hasNext() && os.hasNext()) {
            int xBase = xs.next(), oBase = os.next();
            for (int j = 0; j < idx.length; j++) move.move(xBase + idx[j] * xStride, oBase + j * outStride);
        }
        return out;
    }

    /** out[pos] = x[pos with pos[dim] replaced by idx[pos]]; out has the index's shape, contiguous. */
    static Object gather(Object x, DType dtype, Layout xLayout, int dim,
                         Object index, DType indexType, Layout indexLayout) {
        IndexShapes.checkFits("gather", "index", indexLayout, "x", xLayout, dim);
        int[] idx = checkedIndices("gather", index, indexType, indexLayout, dim, xLayout.size(dim));
        Object out = ReferenceCopies.newArray(dtype, idx.length);
        ReferenceCopies.ElementMover move = ReferenceCopies.mover(x, out);
        int xStride = xLayout.stride(dim);
        StridedWalker xs = new StridedWalker(alongIndex(xLayout, indexLayout, dim, xLayout.offset()));
        for (int i = 0; i < idx.length; i++) move.move(xs.next() + idx[i] * xStride, i);
        return out;
    }

    /**
     * A contiguous copy of base with src[pos] added at pos with pos[dim] replaced by idx[pos].
     * Sums accumulate in double, so repeated indices add up in a fixed, accurate way.
     */
    static float[] scatterAdd(float[] base, Layout baseLayout, int dim,
                              Object index, DType indexType, Layout indexLayout, float[] src, Layout srcLayout) {
        if (!Arrays.equals(indexLayout.shape(), srcLayout.shape())) {
            throw new IllegalArgumentException("scatterAdd: index shape " + Arrays.toString(indexLayout.shape())
                    + " differs from src shape " + Arrays.toString(srcLayout.shape()));
        }
        IndexShapes.checkFits("scatterAdd", "index", indexLayout, "base", baseLayout, dim);
        int[] idx = checkedIndices("scatterAdd", index, indexType, indexLayout, dim, baseLayout.size(dim));
        Layout outLayout = Layout.contiguous(baseLayout.shape());
        float[] start = (float[]) ReferenceCopies.toContiguous(base, DType.FLOAT32, baseLayout);
        double[] acc = new double[start.length];
        for (int i = 0; i < start.length; i++) acc[i] = start[i];
        int outStride = outLayout.stride(dim);
        StridedWalker os = new StridedWalker(alongIndex(outLayout, indexLayout, dim, 0));
        StridedWalker ss = new StridedWalker(srcLayout);
        for (int i = 0; i < idx.length; i++) acc[os.next() + idx[i] * outStride] += src[ss.next()];
        float[] out = new float[acc.length];
        for (int i = 0; i < out.length; i++) out[i] = (float) acc[i];
        return out;
    }

    /**
     * target's strides over the index's shape, with dim's stride 0: walking it in lockstep
     * with the index gives, for each index position, the target offset before the index is added.
     */
    private static Layout alongIndex(Layout target, Layout index, int dim, int offset) {
        int[] strides = target.strides().clone();
        strides[dim] = 0;
        return new Layout(index.shape().clone(), strides, offset);
    }
}
