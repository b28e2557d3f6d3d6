package dev.symbiont.cuda;

import dev.symbiont.core.backend.Availability;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BackendProvider;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The CUDA backend's entry for ServiceLoader. This build ships the seam only: the provider
 * finds the NVIDIA driver or says it is missing, and reports that the kernels are not in this
 * build yet, so selection skips it with a reason instead of failing.
 */
public final class CudaBackendProvider implements BackendProvider {
    static final List<Path> DRIVER_LOCATIONS = List.of(
            Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
            Path.of("/usr/lib64/libcuda.so.1"),
            Path.of("/usr/local/cuda/compat/libcuda.so.1"));

    @Override public String name() { return "cuda"; }

    @Override public int priority() { return 200; }

    @Override
    public Availability availability() {
        return availability(DRIVER_LOCATIONS);
    }

    static Availability availability(List<Path> driverLocations) {
        boolean driver = driverLocations.stream().anyMatch(Files::isReadable);
        if (!driver) {
            return Availability.no("no NVIDIA driver found (libcuda.so.1 not in " + driverLocations + ")");
        }
        return Availability.no("NVIDIA driver found, but this build has no CUDA kernels yet");
    }

    @Override
    public Backend create() {
        throw new UnsupportedOperationException("cuda backend: " + availability().reason());
    }
}
