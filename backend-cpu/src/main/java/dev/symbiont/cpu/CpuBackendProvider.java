package dev.symbiont.cpu;

import dev.symbiont.core.backend.Availability;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BackendProvider;

/**
 * Finds the {@link CpuBackend}: pure Java, so always available, and above the reference.
 * Loads nothing heavy until {@link #create()}; without the Vector API the backend itself
 * falls back to the reference kernels and the EJML GEMM.
 */
public final class CpuBackendProvider implements BackendProvider {
    @Override public String name() { return "cpu"; }

    @Override public int priority() { return 100; }

    @Override public Availability availability() { return Availability.yes(); }

    @Override public Backend create() { return new CpuBackend(); }
}
