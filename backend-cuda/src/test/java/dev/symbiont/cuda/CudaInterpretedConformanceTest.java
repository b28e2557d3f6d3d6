package dev.symbiont.cuda;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.BackendConformanceTest;
import dev.symbiont.cuda.ptx.InterpretedDriver;

/**
 * The whole conformance kit on the {@code cuda} backend over the PTX interpreter: every primitive
 * group, and every fused family through its reference composed of the backend's primitives, so
 * every kernel the backend ships is executed and compared with the reference on every build.
 */
class CudaInterpretedConformanceTest extends BackendConformanceTest {
    @Override
    protected Backend backend() { return new CudaBackend(new InterpretedDriver(), 0); }
}
