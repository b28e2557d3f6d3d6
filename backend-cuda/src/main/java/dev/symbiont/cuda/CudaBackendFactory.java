package dev.symbiont.cuda;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.cuda.driver.Driver;

/**
 * Builds the backend of one device over a working driver. Kept apart from the provider so the
 * provider's probe loads none of the backend's classes.
 */
final class CudaBackendFactory {
    /** Whether this build has the backend's ops; until it does, a working driver is still reported unavailable. */
    static final boolean READY = false;
    static final String MISSING = "this build has no CudaBackend yet (the driver, allocator and BLAS layers are in; the ops are not)";

    private CudaBackendFactory() {}

    static Backend create(Driver driver, int ordinal) {
        throw new UnsupportedOperationException("cuda backend: " + MISSING + " (driver " + driver.describe() + ", device " + ordinal + ")");
    }
}
