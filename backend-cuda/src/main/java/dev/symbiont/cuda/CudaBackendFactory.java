package dev.symbiont.cuda;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.cuda.driver.Driver;

/**
 * Builds the backend of one device over a working driver. Kept apart from the provider so the
 * provider's probe loads none of the backend's classes.
 */
final class CudaBackendFactory {
    /**
     * Whether every primitive of the SPI runs on the device in this build. Until it does, a working
     * driver is still reported unavailable: the provider's priority would otherwise make a GPU
     * machine's default backend one whose missing ops throw. {@code -Dsymbiont.cuda.experimental=true}
     * offers it anyway (gpu-check.sh does, to run the kit and the training on the real device).
     */
    static final boolean COMPLETE = false;
    static final String EXPERIMENTAL = "symbiont.cuda.experimental";
    static final boolean READY = COMPLETE || Boolean.getBoolean(EXPERIMENTAL);
    static final String MISSING = "this build's CudaBackend does not run every primitive yet (matmul, reductions, "
            + "random, indexing and the index check are still to come; -D" + EXPERIMENTAL + "=true offers it anyway)";

    private CudaBackendFactory() {}

    static Backend create(Driver driver, int ordinal) {
        return new CudaBackend(driver, ordinal);
    }
}
