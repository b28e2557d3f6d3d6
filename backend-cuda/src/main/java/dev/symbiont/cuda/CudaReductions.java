package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.util.Arrays;

/**
 * Reductions, cumsum and top-k over float32 ({@code reduce.cu}), with the reference backend's
 * semantics. A reduction runs one block per output element, its threads striding over the
 * reduced elements and combining them in a shared-memory tree. cumsum and top-k run one thread
 * per row (a row is the elements along {@code dim}): simple and exact, but a long row is a long
 * sequential walk; top-k's selection is O(k · row) per row.
 */
final class CudaReductions {
    private static final int REDUCE_THREADS = 256;

    private final CudaBackend backend;

    CudaReductions(CudaBackend backend) { this.backend = backend; }

    /** x (any shape) reduced over {@code dims}: x's shape with those dims of size 1, contiguous; float32, or int64 for ARGMAX/ARGMIN. */
    CudaStorage reduce(ReduceOp op, CudaStorage x, Layout xLayout, int[] dims) {
        boolean[] reduced = reducedDims(op, xLayout, dims);
        if (op.isArg() && dims.length != 1) {
            throw new IllegalArgumentException(op + ": needs exactly one dim, got " + Arrays.toString(dims));
        }
        backend.enter();
        long extent = 1;
        for (int d = 0; d < xLayout.rank(); d++) if (reduced[d]) extent *= xLayout.size(d);
        long count = outerCount(xLayout, reduced);
        if (extent == 0 && count > 0 && op != ReduceOp.SUM) {
            String what = op.isArg() ? "dim " + dims[0] : "dims " + Arrays.toString(dims);
            throw new IllegalArgumentException(op + ": cannot reduce an empty set of elements (" + what
                    + " of shape " + Arrays.toString(xLayout.shape()) + ")");
        }
        CudaStorage out = backend.empty(op.isArg() ? DType.INT64 : DType.FLOAT32, count);
        if (count == 0) return out;
        Dim3 grid = Dim3.of((int) Math.min(count, Kernels.MAX_BLOCKS));
        int threads = threadsFor(extent);
        Dim3 block = Dim3.of(threads);
        byte[] outer = outer(op.opName(), xLayout, reduced);
        if (op.isArg()) {
            backend.kernels().launch("reduce", "argreduce_f32", grid, block, threads * (8 + 4), KernelArgs.of().pointer(out.address())
                    .pointer(x.address()).struct(outer, Strided.ALIGN).i64(xLayout.stride(dims[0]))
                    .i64(count).i64(extent).i32(op == ReduceOp.ARGMAX ? 1 : 0));
        } else {
            backend.kernels().launch("reduce", "reduce_f32", grid, block, threads * 8, KernelArgs.of().pointer(out.address())
                    .pointer(x.address()).struct(outer, Strided.ALIGN).struct(inner(op.opName(), xLayout, reduced), Strided.ALIGN)
                    .i64(count).i64(extent).i32(op.ordinal()));
        }
        return out;
    }

    /** Inclusive prefix sums of x along {@code dim}; x's shape, contiguous. */
    CudaStorage cumsum(CudaStorage x, Layout xLayout, int dim) {
        dim = xLayout.dim("cumsum", dim);
        backend.enter();
        Layout outLayout = Layout.contiguous(xLayout.shape());
        boolean[] along = along(xLayout.rank(), dim);
        long rows = outerCount(xLayout, along);
        CudaStorage out = backend.empty(DType.FLOAT32, xLayout.numel());
        backend.kernels().launch("reduce", "cumsum_f32", rows, KernelArgs.of()
                .pointer(out.address()).struct(outer("cumsum", outLayout, along), Strided.ALIGN).i64(outLayout.stride(dim))
                .pointer(x.address()).struct(outer("cumsum", xLayout, along), Strided.ALIGN).i64(xLayout.stride(dim))
                .i64(rows).i64(xLayout.size(dim)));
        return out;
    }

    /** The k largest (or smallest) of x along {@code dim}, sorted, ties in index order: x's shape with dim of size k. */
    Backend.TopK topk(CudaStorage x, Layout xLayout, int dim, int k, boolean largest) {
        dim = xLayout.dim("topk", dim);
        int size = xLayout.size(dim);
        if (k < 0 || k > size) {
            throw new IllegalArgumentException("topk: k " + k + " out of range for dim " + dim + " of size "
                    + size + " in shape " + Arrays.toString(xLayout.shape()));
        }
        backend.enter();
        int[] outShape = xLayout.shape().clone();
        outShape[dim] = k;
        Layout outLayout = Layout.contiguous(outShape);
        boolean[] along = along(xLayout.rank(), dim);
        long rows = outerCount(xLayout, along);
        CudaStorage values = backend.empty(DType.FLOAT32, outLayout.numel());
        CudaStorage indices = backend.empty(DType.INT64, outLayout.numel());
        if (k > 0) {
            backend.kernels().launch("reduce", "topk_f32", rows, KernelArgs.of()
                    .pointer(values.address()).pointer(indices.address())
                    .struct(outer("topk", outLayout, along), Strided.ALIGN).i64(outLayout.stride(dim))
                    .pointer(x.address()).struct(outer("topk", xLayout, along), Strided.ALIGN).i64(xLayout.stride(dim))
                    .i64(rows).i64(size).i64(k).i32(largest ? 1 : 0));
        }
        return new Backend.TopK(values, indices);
    }

    /** The reduced dims as flags; {@code dims} must be sorted, distinct and within x's rank. */
    private static boolean[] reducedDims(ReduceOp op, Layout layout, int[] dims) {
        boolean[] reduced = new boolean[layout.rank()];
        for (int i = 0; i < dims.length; i++) {
            int d = dims[i];
            if (d < 0 || d >= layout.rank() || (i > 0 && d <= dims[i - 1])) {
                throw new IllegalArgumentException(op + ": dims " + Arrays.toString(dims)
                        + " must be sorted, distinct and within shape " + Arrays.toString(layout.shape()));
            }
            reduced[d] = true;
        }
        return reduced;
    }

    private static boolean[] along(int rank, int dim) {
        boolean[] flags = new boolean[rank];
        flags[dim] = true;
        return flags;
    }

    /** The number of output elements: the product of the dims not reduced. */
    private static long outerCount(Layout layout, boolean[] reduced) {
        long n = 1;
        for (int d = 0; d < layout.rank(); d++) if (!reduced[d]) n *= layout.size(d);
        return n;
    }

    /** The dims of {@code layout} not in {@code reduced}, from its offset: one step per output element. */
    private static byte[] outer(String op, Layout layout, boolean[] reduced) {
        return pick(op, layout, reduced, false, layout.offset());
    }

    /** The dims in {@code reduced}, from 0: the offsets of one output's elements relative to its base. */
    private static byte[] inner(String op, Layout layout, boolean[] reduced) {
        return pick(op, layout, reduced, true, 0);
    }

    private static byte[] pick(String op, Layout layout, boolean[] reduced, boolean which, long offset) {
        int n = 0;
        for (boolean r : reduced) if (r == which) n++;
        int[] shape = new int[n], strides = new int[n];
        for (int d = 0, i = 0; d < layout.rank(); d++) {
            if (reduced[d] != which) continue;
            shape[i] = layout.size(d);
            strides[i++] = layout.stride(d);
        }
        return Strided.of(op, shape, strides, offset);
    }

    /** Threads for a block reducing {@code extent} elements: a power of two, at most {@value #REDUCE_THREADS}. */
    private static int threadsFor(long extent) {
        int t = 1;
        while (t < REDUCE_THREADS && t < extent) t <<= 1;
        return t;
    }
}
