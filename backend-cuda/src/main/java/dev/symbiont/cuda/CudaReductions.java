package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.reference.StridedWalker;
import dev.symbiont.cuda.driver.KernelArgs;

import java.util.Arrays;

/** Reductions, cumsum and top-k over float32 ({@code reduce.cu}). */
final class CudaReductions {
    private final CudaBackend backend;

    CudaReductions(CudaBackend backend) { this.backend = backend; }

    /**
     * SUM, MAX or MIN over the sorted {@code dims} → float32 in x's shape with those dims of size 1;
     * ARGMAX or ARGMIN over one dim → int64 likewise (the first extreme index, NaN the extreme).
     */
    CudaStorage reduce(ReduceOp op, CudaStorage x, Layout xLayout, int[] dims) {
        backend.enter();
        checkDims(op, xLayout, dims);
        Layout outer = StridedWalker.outer(xLayout, dims);
        long count = outer.numel();
        long sliceSize = StridedWalker.inner(xLayout, dims).numel();
        if (sliceSize == 0 && count > 0 && op != ReduceOp.SUM) {
            throw new IllegalArgumentException(op + ": cannot reduce an empty set of elements (dim" + (op.isArg() ? " " + dims[0] : "s "
                    + Arrays.toString(dims)) + " of shape " + Arrays.toString(xLayout.shape()) + ")");
        }
        if (op.isArg()) {
            CudaStorage out = backend.empty(DType.INT64, count);
            backend.kernels().launch("reduce", "argreduce_f32", count, KernelArgs.of().pointer(out.address()).pointer(x.address())
                    .struct(Strided.of(op.name(), outer), Strided.ALIGN).i64(count)
                    .i64(xLayout.size(dims[0])).i64(xLayout.stride(dims[0])).i32(op == ReduceOp.ARGMAX ? 1 : 0));
            return out;
        }
        CudaStorage out = backend.empty(DType.FLOAT32, count);
        backend.kernels().launch("reduce", "reduce_f32", count, KernelArgs.of().pointer(out.address()).pointer(x.address())
                .struct(Strided.of(op.name(), outer), Strided.ALIGN)
                .struct(Strided.of(op.name(), StridedWalker.inner(xLayout, dims)), Strided.ALIGN)
                .i64(count).i64(sliceSize).i32(op.ordinal()));
        return out;
    }

    private static void checkDims(ReduceOp op, Layout layout, int[] dims) {
        if (op.isArg() && dims.length != 1) {
            throw new IllegalArgumentException(op + ": needs exactly one dim, got " + Arrays.toString(dims));
        }
        for (int i = 0; i < dims.length; i++) {
            if (dims[i] < 0 || dims[i] >= layout.rank() || (i > 0 && dims[i] <= dims[i - 1])) {
                throw new IllegalArgumentException(op + ": dims " + Arrays.toString(dims)
                        + " must be sorted, distinct and within rank " + layout.rank() + " of shape "
                        + Arrays.toString(layout.shape()));
            }
        }
    }

    /** Running sums along {@code dim} (double accumulation) → contiguous float32 of x's shape. */
    CudaStorage cumsum(CudaStorage x, Layout xLayout, int dim) {
        backend.enter();
        int d = xLayout.dim("cumsum", dim);
        Layout outLayout = Layout.contiguous(xLayout.shape());
        CudaStorage out = backend.empty(DType.FLOAT32, outLayout.numel());
        Layout xOuter = StridedWalker.outer(xLayout, d), outOuter = StridedWalker.outer(outLayout, d);
        long count = xOuter.numel();
        backend.kernels().launch("reduce", "cumsum_f32", count, KernelArgs.of().pointer(out.address()).pointer(x.address())
                .struct(Strided.of("cumsum", xOuter), Strided.ALIGN).struct(Strided.of("cumsum", outOuter), Strided.ALIGN)
                .i64(count).i64(xLayout.size(d)).i64(xLayout.stride(d)).i64(outLayout.stride(d)));
        return out;
    }

    /**
     * The k largest (or smallest) entries along {@code dim}, sorted, ties in index order, NaN above
     * every number: float32 values and int64 indices of x's shape with that dim of size k. The
     * kernel ranks every element against its line (no shared memory), so any line length works.
     */
    Backend.TopK topk(CudaStorage x, Layout xLayout, int dim, int k, boolean largest) {
        backend.enter();
        int d = xLayout.dim("topk", dim);
        int size = xLayout.size(d);
        if (k < 0 || k > size) {
            throw new IllegalArgumentException("topk: k " + k + " out of range for dim " + d + " of size "
                    + size + " in shape " + Arrays.toString(xLayout.shape()));
        }
        int[] outShape = xLayout.shape().clone();
        outShape[d] = k;
        Layout outLayout = Layout.contiguous(outShape);
        CudaStorage values = backend.empty(DType.FLOAT32, outLayout.numel());
        CudaStorage indices = backend.empty(DType.INT64, outLayout.numel());
        Layout xOuter = StridedWalker.outer(xLayout, d);
        long lines = xOuter.numel();
        if (k > 0) {
            backend.kernels().launch("reduce", "topk_f32", lines * size, KernelArgs.of().pointer(values.address())
                    .pointer(indices.address()).pointer(x.address())
                    .struct(Strided.of("topk", xOuter), Strided.ALIGN)
                    .struct(Strided.of("topk", StridedWalker.outer(outLayout, d)), Strided.ALIGN)
                    .i64(lines).i64(size).i64(xLayout.stride(d)).i64(outLayout.stride(d)).i64(k).i32(largest ? 1 : 0));
        }
        return new Backend.TopK(values, indices);
    }
}
