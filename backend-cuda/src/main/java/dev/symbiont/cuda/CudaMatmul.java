package dev.symbiont.cuda;

import dev.symbiont.core.Layout;

/** Batched matmul on the backend's {@link dev.symbiont.cuda.blas.Blas} (cuBLAS, or the GEMM kernel). */
final class CudaMatmul {
    private final CudaBackend backend;

    CudaMatmul(CudaBackend backend) { this.backend = backend; }

    CudaStorage matmul(CudaStorage a, Layout aLayout, CudaStorage b, Layout bLayout) {
        throw new UnsupportedOperationException("cuda backend: matmul not yet implemented");
    }
}
