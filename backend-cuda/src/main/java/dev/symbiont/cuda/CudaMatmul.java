package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.cuda.blas.Blas;
import dev.symbiont.cuda.blas.BlasRoutes;
import dev.symbiont.cuda.blas.GemmCall;

import java.util.Arrays;

/**
 * Batched matmul on the backend's {@link Blas} (cuBLAS, or the GEMM kernel), chosen by
 * {@link BlasRoutes#select} on first use. Row-major {@code C = A · B} is column-major
 * {@code Cᵀ = Bᵀ · Aᵀ}, so B goes as cuBLAS's A and A as its B. An operand whose last two dims
 * are row-major or column-major (a transposed view) goes as it is, with a transpose flag; one
 * whose batch dims collapse into one stride (stride 0 for a broadcast batch) goes as a strided
 * batch. Any other layout (both matrix strides non-unit, or batch dims that do not collapse) is
 * first copied to a contiguous buffer. Mixed operand dtypes run on the GEMM kernel.
 */
final class CudaMatmul {
    private final CudaBackend backend;
    private BlasRoutes routes;

    CudaMatmul(CudaBackend backend) { this.backend = backend; }

    /** (batch..., m, k) · (batch..., k, n) of float32/bfloat16/float16 → contiguous float32 (batch..., m, n). */
    CudaStorage matmul(CudaStorage a, Layout aLayout, CudaStorage b, Layout bLayout) {
        elementType(a.dtype());
        elementType(b.dtype());
        checkShapes(aLayout, bLayout);
        backend.enter();
        int rank = aLayout.rank();
        int m = aLayout.size(rank - 2), k = aLayout.size(rank - 1), n = bLayout.size(rank - 1);
        int[] outShape = aLayout.shape().clone();
        outShape[rank - 1] = n;
        long count = Layout.numel("matmul", outShape);
        CudaStorage c = backend.empty(DType.FLOAT32, count);
        if (count == 0) return c;
        int batch = (int) (count / ((long) m * n));
        Operand x = Operand.of(backend, a, aLayout), y = Operand.of(backend, b, bLayout);
        try {
            // Column-major: C' (n×m, ldc n) = op(B') (n×k) · op(A') (k×m), with B' = the row-major B.
            blas().gemm(new GemmCall(y.transposed, x.transposed, n, m, k,
                    y.address, elementType(b.dtype()), y.ld, y.batchStride,
                    x.address, elementType(a.dtype()), x.ld, x.batchStride,
                    c.address(), n, (long) m * n, batch, GemmCall.MathMode.DEFAULT));
        } finally {
            x.release();
            y.release();
        }
        return c;
    }

    private synchronized Blas blas() {
        if (routes == null) routes = BlasRoutes.select(backend.driver(), backend.stream(), () -> new KernelBlas(backend.kernels()));
        return routes.blas();
    }

    /**
     * One row-major (batch..., r, c) operand as cuBLAS sees its transpose: column-major c×r at
     * {@code address} with leading dimension {@code ld} ({@code transposed} false), or, for a
     * transposed view, column-major r×c ({@code transposed} true); {@code copy} is the contiguous
     * copy made when the layout fits neither, released after the call.
     */
    private record Operand(long address, boolean transposed, int ld, long batchStride, CudaStorage copy) {
        static Operand of(CudaBackend backend, CudaStorage s, Layout layout) {
            Operand direct = direct(s, layout);
            if (direct != null) return direct;
            CudaStorage copy = (CudaStorage) backend.contiguous(s, layout);
            Operand o = direct(copy, Layout.contiguous(layout.shape()));
            return new Operand(o.address, o.transposed, o.ld, o.batchStride, copy);
        }

        private static Operand direct(CudaStorage s, Layout layout) {
            int rank = layout.rank(), r = layout.size(rank - 2), c = layout.size(rank - 1);
            long batchStride = batchStride(layout);
            if (batchStride < 0) return null;
            int sr = r == 1 ? Math.max(1, c) : layout.stride(rank - 2), sc = c == 1 ? 1 : layout.stride(rank - 1);
            long address = s.address(layout.offset());
            if (sc == 1 && sr >= Math.max(1, c)) return new Operand(address, false, sr, batchStride, null);
            sr = r == 1 ? 1 : layout.stride(rank - 2);
            sc = c == 1 ? Math.max(1, r) : layout.stride(rank - 1);
            if (sr == 1 && sc >= Math.max(1, r)) return new Operand(address, true, sc, batchStride, null);
            return null;
        }

        /** The one stride that walks the batch dims in row-major order (0 for a broadcast or a single matrix), or -1 if none does. */
        private static long batchStride(Layout layout) {
            long stride = 0, expected = -1;
            for (int d = layout.rank() - 3; d >= 0; d--) {
                if (layout.size(d) == 1) continue;
                long sd = layout.stride(d);
                if (expected < 0) stride = sd;
                else if (sd != expected) return -1;
                expected = sd * layout.size(d);
            }
            return stride;
        }

        void release() {
            if (copy != null) copy.release();
        }
    }

    private static GemmCall.ElementType elementType(DType dtype) {
        return switch (dtype) {
            case FLOAT32 -> GemmCall.ElementType.F32;
            case BFLOAT16 -> GemmCall.ElementType.BF16;
            case FLOAT16 -> GemmCall.ElementType.F16;
            default -> throw new IllegalArgumentException("matmul: expected float32, bfloat16 or float16, got " + dtype);
        };
    }

    private static void checkShapes(Layout a, Layout b) {
        int rank = a.rank();
        boolean ok = rank >= 2 && b.rank() == rank && a.size(rank - 1) == b.size(rank - 2)
                && Arrays.equals(a.shape(), 0, rank - 2, b.shape(), 0, rank - 2);
        if (!ok) {
            throw new IllegalArgumentException("matmul: shapes " + Arrays.toString(a.shape()) + " and "
                    + Arrays.toString(b.shape()) + " do not multiply (expected (batch..., m, k) and (batch..., k, n))");
        }
    }
}
