package dev.symbiont.cuda.device;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.conformance.BackendConformanceTest;
import dev.symbiont.cuda.CudaBackendProvider;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The conformance kit on the real {@code cuda} backend: skipped, with the provider's reason,
 * where no GPU is (every build machine, which runs the kit on the PTX interpreter instead);
 * run by {@code backend-cuda/gpu-check.sh} on a GPU machine.
 */
class CudaDeviceConformanceTest extends BackendConformanceTest {
    @BeforeAll
    static void needsAGpu() {
        var availability = new CudaBackendProvider().availability();
        assumeTrue(availability.available(), () -> "no real CUDA device: " + availability.reason());
    }

    @Override
    protected Backend backend() { return Backends.get("cuda"); }
}
