package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.cuda.blas.Blas;
import dev.symbiont.cuda.blas.BlasRoutes;
import dev.symbiont.cuda.blas.GemmCall;
import dev.symbiont.cuda.blas.KernelBlas;

/**
 * Batched matmul on the backend's {@link Blas} (cuBLAS, or the GEMM kernel). The SPI's row-major
 * {@code C (m×n) = A (m×k) · B (k×n)} is the column-major {@code Cᵀ = Bᵀ · Aᵀ}: the operands swap,
 * and an operand whose last two dims are stored transposed (a transposed view) becomes a GEMM
 * transpose, never a copy. Only an operand whose matrix has neither unit inner stride (a strided
 * slice, a stride-0 row or column) is first copied to contiguous. Batch dims that collapse to one
 * stride per operand (stride-0 broadcast included) make one strided batched call; otherwise the
 * batches run as one call each.
 *
 * <p>TF32 is opt-in, as PyTorch's {@code allow_tf32}: {@code -D}{@value #TF32_PROPERTY}{@code =true}
 * lets cuBLAS use TF32 tensor cores for float32 products (the GEMM kernel ignores it).
 */
final class CudaMatmul {
    static final String TF32_PROPERTY = "symbiont.cuda.tf32";

    private final CudaBackend backend;
    private final GemmCall.MathMode mode = Boolean.getBoolean(TF32_PROPERTY) ? GemmCall.MathMode.TF32 : GemmCall.MathMode.DEFAULT;
    private Blas blas;

    CudaMatmul(CudaBackend backend) { this.backend = backend; }

    /** The route chosen on first use: cuBLAS where a library opens, the GEMM kernel otherwise. */
    synchronized Blas blas() {
        if (blas == null) {
            blas = BlasRoutes.select(backend.driver(), backend.stream(),
                    () -> new KernelBlas(backend.driver(), backend.stream(), KernelImages.load("gemm"))).blas();
        }
        return blas;
    }

    /** A (batch..., m, k) · B (batch..., k, n) → contiguous float32 (batch..., m, n). */
    CudaStorage matmul(CudaStorage a, Layout aLayout, CudaStorage b, Layout bLayout) {
        backend.enter();
        int rank = aLayout.rank();
        int m = aLayout.size(rank - 2), k = aLayout.size(rank - 1), n = bLayout.size(rank - 1);
        int[] batchShape = java.util.Arrays.copyOf(aLayout.shape(), rank - 2);
        int batches = Layout.numel(batchShape);
        CudaStorage out = backend.empty(DType.FLOAT32, (long) batches * m * n);
        if (out.size() == 0) return out;
        MatrixOperand left = MatrixOperand.of(backend, a, aLayout);
        MatrixOperand right = MatrixOperand.of(backend, b, bLayout);
        try {
            long strideA = left.batchStride(), strideB = right.batchStride();
            if (strideA >= 0 && strideB >= 0) {
                blas().gemm(call(left, right, m, n, k, 0, 0, out.address(), strideA, strideB, batches, mode));
            } else {
                for (int batch = 0; batch < batches; batch++) {
                    blas().gemm(call(left, right, m, n, k, left.batchOffset(batch), right.batchOffset(batch),
                            out.address((long) batch * m * n), 0, 0, 1, mode));
                }
            }
        } finally {
            left.releaseCopy();
            right.releaseCopy();
        }
        return out;
    }

    /**
     * The row-major product C (m×n, contiguous at {@code c}) = left (m×k) · right (k×n), each operand
     * read from {@code offset} elements past its layout's start, as column-major
     * {@code Cᵀ (n×m) = Bᵀ (n×k) · Aᵀ (k×m)}: B is the GEMM's A, A its B.
     */
    static GemmCall call(MatrixOperand left, MatrixOperand right, int m, int n, int k, long leftOffset, long rightOffset,
                         long c, long strideA, long strideB, int batch, GemmCall.MathMode mode) {
        // Bᵀ is B's storage read column-major: as it is when B is row-major, transposed when B is a transposed view.
        return new GemmCall(right.transposed(), left.transposed(), n, m, k,
                right.address(rightOffset), right.type(), right.ld(), strideB,
                left.address(leftOffset), left.type(), left.ld(), strideA,
                c, n, (long) m * n, batch, mode);
    }
}
