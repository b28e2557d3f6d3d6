package dev.symbiont.cuda;

import dev.symbiont.core.Layout;

/** indexSelect, gather and scatterAdd ({@code indexing.cu}). */
final class CudaIndexing {
    private final CudaBackend backend;

    CudaIndexing(CudaBackend backend) { this.backend = backend; }

    CudaStorage indexSelect(CudaStorage x, Layout xLayout, int dim, CudaStorage index, Layout indexLayout) {
        throw new UnsupportedOperationException("cuda backend: indexSelect not yet implemented");
    }

    CudaStorage gather(CudaStorage x, Layout xLayout, int dim, CudaStorage index, Layout indexLayout) {
        throw new UnsupportedOperationException("cuda backend: gather not yet implemented");
    }

    CudaStorage scatterAdd(CudaStorage base, Layout baseLayout, int dim, CudaStorage index, Layout indexLayout,
                           CudaStorage src, Layout srcLayout) {
        throw new UnsupportedOperationException("cuda backend: scatterAdd not yet implemented");
    }
}
