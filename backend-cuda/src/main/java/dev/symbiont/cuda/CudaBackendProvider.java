package dev.symbiont.cuda;

import dev.symbiont.core.backend.Availability;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BackendProvider;
import dev.symbiont.cuda.blas.BlasRoutes;
import dev.symbiont.cuda.driver.CudaException;
import dev.symbiont.cuda.driver.DeviceInfo;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.jcuda.JCudaDriver;
import dev.symbiont.cuda.jcuda.LoadFailures;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.function.Supplier;

/**
 * The CUDA backend's entry for ServiceLoader. Available when JCuda's natives load, {@code cuInit}
 * succeeds and the driver finds a device; otherwise the precise reason: no {@code libcuda.so.1}
 * where it was looked for, the natives' load error, {@code cuInit}'s error, or no device. When
 * available, its reason is the route {@code symbiont backends} prints: driver, devices, BLAS.
 * The probe runs once per JVM and its driver serves every backend created.
 */
public final class CudaBackendProvider implements BackendProvider {
    static final List<Path> DRIVER_LOCATIONS = driverLocations(System.getenv("LD_LIBRARY_PATH"));

    /** Said wherever the real device is missing, so a reader knows the kernels are not untested for it. */
    static final String INTERPRETED = "the CUDA kernels are built into this jar and every build runs them on the PTX interpreter";

    /** What the one probe of this JVM found. */
    record Probe(Availability availability, Driver driver) {}

    private static final class Holder {
        static final Probe PROBE = probe(DRIVER_LOCATIONS, JCudaDriver::open, BlasRoutes::probe);
    }

    @Override public String name() { return "cuda"; }

    @Override public int priority() { return 200; }

    @Override
    public Availability availability() {
        return Holder.PROBE.availability();
    }

    /** The probe up to the driver library's presence; the rest needs the real driver. */
    static Availability availability(List<Path> driverLocations) {
        return probe(driverLocations, () -> {
            throw new IllegalStateException("not opened by this check");
        }, () -> "").availability();
    }

    /**
     * Looks for the driver library, opens the driver, counts devices and names the BLAS route.
     * Never throws: every failure becomes the reason.
     */
    static Probe probe(List<Path> driverLocations, Supplier<Driver> open, Supplier<String> blasRoute) {
        if (driverLocations.stream().noneMatch(Files::isReadable)) {
            return unavailable("no NVIDIA driver found (libcuda.so.1 not in " + driverLocations + ")");
        }
        Driver driver;
        try {
            driver = open.get();
        } catch (LinkageError e) {
            return unavailable("JCuda's natives failed to load: " + LoadFailures.describe(e));
        } catch (CudaException e) {
            return unavailable("the NVIDIA driver did not initialise: " + e.getMessage());
        } catch (RuntimeException e) {
            return unavailable("the NVIDIA driver could not be opened: " + LoadFailures.describe(e));
        }
        int count;
        try {
            count = driver.deviceCount();
        } catch (RuntimeException e) {
            return unavailable("the NVIDIA driver could not count devices: " + e.getMessage());
        }
        if (count < 1) return unavailable("the NVIDIA driver (" + driver.describe() + ") finds no CUDA device");
        String route = route(driver, count, blasRoute.get());
        if (!CudaBackendFactory.READY) return unavailable(route + "; but " + CudaBackendFactory.MISSING);
        return new Probe(new Availability(true, route), driver);
    }

    private static Probe unavailable(String reason) {
        return new Probe(Availability.no(reason + "; " + INTERPRETED), null);
    }

    /** "JCuda 12.6.0 driver API, NVIDIA driver for CUDA 13.0; cuda:0 NVIDIA H100 (sm_90, 79.19 GiB, 132 SMs); BLAS: ...". */
    static String route(Driver driver, int count, String blas) {
        StringJoiner devices = new StringJoiner(", ");
        for (int i = 0; i < count; i++) {
            try {
                DeviceInfo d = driver.deviceInfo(i);
                devices.add(String.format(Locale.ROOT, "cuda:%d %s (%s, %.2f GiB, %d SMs)", i, d.name(), d.arch(),
                        d.totalBytes() / (double) (1L << 30), d.multiprocessors()));
            } catch (RuntimeException e) {
                devices.add("cuda:" + i + " (" + e.getMessage() + ")");
            }
        }
        return driver.describe() + "; " + devices + "; BLAS: " + blas;
    }

    @Override
    public int deviceCount() {
        Probe probe = Holder.PROBE;
        return probe.driver() == null ? 1 : probe.driver().deviceCount();
    }

    @Override
    public Backend create() {
        return create(0);
    }

    @Override
    public Backend create(int ordinal) {
        Probe probe = Holder.PROBE;
        if (!probe.availability().available()) {
            throw new UnsupportedOperationException("cuda backend: " + probe.availability().reason());
        }
        int count = probe.driver().deviceCount();
        if (ordinal < 0 || ordinal >= count) {
            throw new IllegalArgumentException("cuda backend: no device cuda:" + ordinal + ", the driver finds " + count);
        }
        return CudaBackendFactory.create(probe.driver(), ordinal);
    }

    /** Where libcuda.so.1 is looked for: the library path first, then where distributions and the toolkit put it. */
    static List<Path> driverLocations(String ldLibraryPath) {
        List<Path> paths = new ArrayList<>();
        if (ldLibraryPath != null) {
            for (String dir : ldLibraryPath.split(":")) if (!dir.isBlank()) paths.add(Path.of(dir, "libcuda.so.1"));
        }
        paths.addAll(List.of(Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), Path.of("/usr/lib64/libcuda.so.1"),
                Path.of("/usr/local/cuda/compat/libcuda.so.1"), Path.of("/usr/lib/wsl/lib/libcuda.so.1")));
        return List.copyOf(paths);
    }
}
