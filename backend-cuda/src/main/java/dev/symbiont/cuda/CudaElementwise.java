package dev.symbiont.cuda;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;

/** Unary, binary and where over float32 ({@code elementwise.cu}). */
final class CudaElementwise {
    private final CudaBackend backend;

    CudaElementwise(CudaBackend backend) { this.backend = backend; }

    CudaStorage unary(UnaryOp op, CudaStorage x, Layout xLayout) {
        throw new UnsupportedOperationException("cuda backend: unary not yet implemented");
    }

    CudaStorage binary(BinaryOp op, CudaStorage a, Layout aLayout, CudaStorage b, Layout bLayout) {
        throw new UnsupportedOperationException("cuda backend: binary not yet implemented");
    }

    CudaStorage where(CudaStorage condition, Layout conditionLayout, CudaStorage a, Layout aLayout, CudaStorage b, Layout bLayout) {
        throw new UnsupportedOperationException("cuda backend: where not yet implemented");
    }
}
