package dev.symbiont.cuda;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.ReduceOp;

/** Reductions, cumsum and top-k over float32 ({@code reduce.cu}). */
final class CudaReductions {
    private final CudaBackend backend;

    CudaReductions(CudaBackend backend) { this.backend = backend; }

    CudaStorage reduce(ReduceOp op, CudaStorage x, Layout xLayout, int[] dims) {
        throw new UnsupportedOperationException("cuda backend: reduce not yet implemented");
    }

    CudaStorage cumsum(CudaStorage x, Layout xLayout, int dim) {
        throw new UnsupportedOperationException("cuda backend: cumsum not yet implemented");
    }

    Backend.TopK topk(CudaStorage x, Layout xLayout, int dim, int k, boolean largest) {
        throw new UnsupportedOperationException("cuda backend: topk not yet implemented");
    }
}
