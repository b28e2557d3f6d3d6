package dev.symbiont.cuda;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.cuda.driver.Driver;

/**
 * Builds the backend of one device over a working driver. Kept apart from the provider so the
 * provider's probe loads none of the backend's classes.
 */
final class CudaBackendFactory {
    /**
     * Whether this build's backend has passed the conformance kit on a real GPU. Every primitive
     * runs, and passes the kit on the PTX interpreter in every build; the JCuda driver and the
     * cuBLAS routes have not yet run on a device, so a working driver is still reported
     * unavailable: the provider's priority would otherwise make a GPU machine's default backend
     * one no GPU has run. {@code -Dsymbiont.cuda.experimental=true} offers it (gpu-check.sh does,
     * to run the kit and the training on the real device).
     */
    static final boolean COMPLETE = false;
    static final String EXPERIMENTAL = "symbiont.cuda.experimental";
    static final boolean READY = COMPLETE || Boolean.getBoolean(EXPERIMENTAL);
    static final String MISSING = "this build's CudaBackend runs every primitive on the PTX interpreter but has not yet passed "
            + "the conformance kit on a real GPU (-D" + EXPERIMENTAL + "=true offers it anyway)";

    private CudaBackendFactory() {}

    static Backend create(Driver driver, int ordinal) {
        return new CudaBackend(driver, ordinal);
    }
}
