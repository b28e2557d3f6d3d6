package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.cuda.blas.GemmCall;

/**
 * One matmul operand (batch..., rows, cols) as a GEMM sees it: the storage (the caller's, or a
 * contiguous copy when the matrix's strides are not a GEMM layout), whether each matrix is stored
 * transposed (column-major: unit row stride), its leading dimension, and its batch strides.
 */
record MatrixOperand(CudaStorage storage, Layout layout, boolean transposed, int ld, boolean copied) {

    static MatrixOperand of(CudaBackend backend, CudaStorage storage, Layout layout) {
        type(storage.dtype());
        int rank = layout.rank();
        int rows = layout.size(rank - 2), cols = layout.size(rank - 1);
        int rowStride = layout.stride(rank - 2), colStride = layout.stride(rank - 1);
        // A size-1 dim's stride is never used, so it constrains nothing.
        if ((cols == 1 || colStride == 1) && (rows == 1 || rowStride >= Math.max(1, cols))) {
            return new MatrixOperand(storage, layout, false, rows == 1 ? Math.max(1, cols) : rowStride, false);
        }
        if ((rows == 1 || rowStride == 1) && (cols == 1 || colStride >= Math.max(1, rows))) {
            return new MatrixOperand(storage, layout, true, cols == 1 ? Math.max(1, rows) : colStride, false);
        }
        CudaStorage copy = (CudaStorage) backend.contiguous(storage, layout);
        return new MatrixOperand(copy, Layout.contiguous(layout.shape()), false, Math.max(1, cols), true);
    }

    static GemmCall.ElementType type(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> GemmCall.ElementType.F32;
            case BFLOAT16 -> GemmCall.ElementType.BF16;
            case FLOAT16 -> GemmCall.ElementType.F16;
            default -> throw new IllegalArgumentException("matmul: operands must be float32, bfloat16 or float16, got " + dtype);
        };
    }

    GemmCall.ElementType type() { return type(storage.dtype()); }

    /** The device address of element {@code offset} past the layout's own offset. */
    long address(long offset) { return storage.address(layout.offset() + offset); }

    /**
     * The one stride (elements) between consecutive batches when the batch dims collapse to it
     * (stride-0 broadcast gives 0), or -1 when they do not.
     */
    long batchStride() {
        int batchRank = layout.rank() - 2;
        long stride = -1;
        long span = 0;   // batches the collapsed dims cover so far, innermost first
        for (int d = batchRank - 1; d >= 0; d--) {
            int size = layout.size(d);
            if (size == 1) continue;
            if (stride < 0) {
                stride = layout.stride(d);
                span = size;
            } else if (layout.stride(d) == stride * span) {
                span *= size;
            } else {
                return -1;
            }
        }
        return Math.max(stride, 0);
    }

    /** The storage offset of batch {@code index} (row-major over the batch dims). */
    long batchOffset(long index) {
        long offset = 0;
        for (int d = layout.rank() - 3; d >= 0; d--) {
            long size = layout.size(d);
            offset += (index % size) * layout.stride(d);
            index /= size;
        }
        return offset;
    }

    void releaseCopy() {
        if (copied) storage.release();
    }
}
