package dev.symbiont.cuda;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;

import java.util.OptionalLong;

/** The SPI's index check on the device ({@code index_check.cu}); a bad id is raised through {@link DeviceErrors}. */
final class CudaIndexCheck {
    private final CudaBackend backend;

    CudaIndexCheck(CudaBackend backend) { this.backend = backend; }

    Backend.IndexCheck checkIndex(String op, CudaStorage ids, Layout idsLayout, long bound, OptionalLong ignore) {
        throw new UnsupportedOperationException("cuda backend: checkIndex not yet implemented");
    }
}
