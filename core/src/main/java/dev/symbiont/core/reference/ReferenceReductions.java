package dev.symbiont.core.reference;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.ReduceOp;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Reductions over float32: sum/max/min over any set of dims, argmax/argmin over one dim,
 * cumulative sum and top-k along one dim. Every kernel splits x into an <i>outer</i> walk
 * (one step per output slice, in the output's row-major order) and the offsets of one slice
 * relative to its base (see {@link StridedWalker#outer} and {@link StridedWalker#inner}).
 * Sums accumulate in double.
 */
final class ReferenceReductions {
    private ReferenceReductions() {}

    /** Values and int64 indices of a top-k, both contiguous in the result shape. */
    record TopKArrays(float[] values, long[] indices) {}

    /** SUM, MAX or MIN over {@code dims}; the result is contiguous in x's shape with those dims of size 1. */
    static float[] reduce(ReduceOp op, float[] x, Layout layout, int[] dims) {
        int[] slice = StridedWalker.offsets(StridedWalker.inner(layout, dims));
        Layout outer = StridedWalker.outer(layout, dims);
        int count = outer.numel();
        if (slice.length == 0 && count > 0 && op != ReduceOp.SUM) {
            throw new IllegalArgumentException(op + ": cannot reduce an empty set of elements (dims "
                    + Arrays.toString(dims) + " of shape " + Arrays.toString(layout.shape()) + ")");
        }
        float[] out = new float[count];
        StridedWalker w = new StridedWalker(outer);
        for (int o = 0; o < count; o++) {
            int base = w.next();
            out[o] = switch (op) {
                case SUM -> sum(x, base, slice);
                case MAX -> max(x, base, slice);
                case MIN -> min(x, base, slice);
                default -> throw new IllegalArgumentException(op + ": not a value reduction");
            };
        }
        return out;
    }

    /**
     * ARGMAX or ARGMIN over one dim: the index of the first extreme value, where NaN counts as
     * the extreme (as in PyTorch, where NaN propagates through max and min).
     */
    static long[] argReduce(ReduceOp op, float[] x, Layout layout, int dim) {
        int size = layout.size(dim), stride = layout.stride(dim);
        Layout outer = StridedWalker.outer(layout, dim);
        int count = outer.numel();
        if (size == 0 && count > 0) {
            throw new IllegalArgumentException(op + ": cannot reduce an empty set of elements (dim "
                    + dim + " of shape " + Arrays.toString(layout.shape()) + ")");
        }
        boolean max = op == ReduceOp.ARGMAX;
        long[] out = new long[count];
        StridedWalker w = new StridedWalker(outer);
        for (int o = 0; o < count; o++) {
            int base = w.next();
            float best = x[base];
            int bestIndex = 0;
            for (int i = 1; i < size && !Float.isNaN(best); i++) {
                float v = x[base + i * stride];
                if (Float.isNaN(v) || (max ? v > best : v < best)) {
                    best = v;
                    bestIndex = i;
                }
            }
            out[o] = bestIndex;
        }
        return out;
    }

    /** Inclusive prefix sums along {@code dim}; contiguous, x's shape. */
    static float[] cumsum(float[] x, Layout layout, int dim) {
        Layout outLayout = Layout.contiguous(layout.shape());
        int size = layout.size(dim), xStride = layout.stride(dim), outStride = outLayout.stride(dim);
        float[] out = new float[layout.numel()];
        StridedWalker xs = new StridedWalker(StridedWalker.outer(layout, dim));
        StridedWalker os = new StridedWalker(StridedWalker.outer(outLayout, dim));
        while (xs.hasNext()) {
            int xBase = xs.next(), oBase = os.next();
            double acc = 0;
            for (int i = 0; i < size; i++) {
                acc += x[xBase + i * xStride];
                out[oBase + i * outStride] = (float) acc;
            }
        }
        return out;
    }

    /**
     * The k largest (or smallest) entries along {@code dim}, sorted, ties in index order.
     * NaN ranks above every number, as in PyTorch: first for largest, last for smallest.
     */
    static TopKArrays topk(float[] x, Layout layout, int dim, int k, boolean largest) {
        int size = layout.size(dim), stride = layout.stride(dim);
        if (k < 0 || k > size) {
            throw new IllegalArgumentException("topk: k " + k + " out of range for dim " + dim + " of size "
                    + size + " in shape " + Arrays.toString(layout.shape()));
        }
        int[] outShape = layout.shape().clone();
        outShape[dim] = k;
        Layout outLayout = Layout.contiguous(outShape);
        int outStride = outLayout.stride(dim);
        float[] values = new float[outLayout.numel()];
        long[] indices = new long[values.length];
        StridedWalker xs = new StridedWalker(StridedWalker.outer(layout, dim));
        StridedWalker os = new StridedWalker(StridedWalker.outer(outLayout, dim));
        float[] row = new float[size];
        Integer[] order = new Integer[size];
        Comparator<Integer> ascending = (i, j) -> compareNanHighest(row[i], row[j]);
        Comparator<Integer> ranking = largest ? ascending.reversed() : ascending;
        while (xs.hasNext()) {
            int xBase = xs.next(), oBase = os.next();
            for (int i = 0; i < size; i++) {
                row[i] = x[xBase + i * stride];
                order[i] = i;
            }
            Arrays.sort(order, ranking); // stable: equal values keep index order
            for (int j = 0; j < k; j++) {
                values[oBase + j * outStride] = row[order[j]];
                indices[oBase + j * outStride] = order[j];
            }
        }
        return new TopKArrays(values, indices);
    }

    /** Numeric order where −0 equals +0 and NaN is above everything (and equal to NaN). */
    static int compareNanHighest(float a, float b) {
        boolean an = Float.isNaN(a), bn = Float.isNaN(b);
        if (an || bn) return an == bn ? 0 : an ? 1 : -1;
        return a < b ? -1 : a > b ? 1 : 0;
    }

    private static float sum(float[] x, int base, int[] slice) {
        double acc = 0;
        for (int off : slice) acc += x[base + off];
        return (float) acc;
    }

    private static float max(float[] x, int base, int[] slice) {
        float m = Float.NEGATIVE_INFINITY;
        for (int off : slice) m = Math.max(m, x[base + off]); // Math.max propagates NaN
        return m;
    }

    private static float min(float[] x, int base, int[] slice) {
        float m = Float.POSITIVE_INFINITY;
        for (int off : slice) m = Math.min(m, x[base + off]);
        return m;
    }
}
