package dev.symbiont.cpu;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.BackendConformanceTest;
import dev.symbiont.cpu.gemm.GemmPath;

/** The conformance kit on the CPU backend with the Vector-API GEMM and kernels. */
class CpuVectorConformanceTest extends BackendConformanceTest {
    @Override
    protected Backend backend() { return new CpuBackend(GemmPath.VECTOR); }
}
