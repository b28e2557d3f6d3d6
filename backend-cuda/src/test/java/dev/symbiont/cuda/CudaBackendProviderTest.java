package dev.symbiont.cuda;

import dev.symbiont.core.backend.Availability;
import dev.symbiont.core.backend.BackendProvider;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.cuda.driver.CudaException;
import dev.symbiont.cuda.jcuda.JCudaDriver;
import dev.symbiont.cuda.memory.FakeDeviceMemory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class CudaBackendProviderTest {
    @TempDir Path dir;

    /** A readable file standing for libcuda.so.1, so the probe goes on to open the driver. */
    private List<Path> presentDriver() throws IOException {
        return List.of(Files.writeString(dir.resolve("libcuda.so.1"), ""));
    }

    private static boolean driverHere() {
        return CudaBackendProvider.DRIVER_LOCATIONS.stream().anyMatch(Files::isReadable);
    }

    @Test
    void providerIsFoundByServiceLoader() {
        boolean found = ServiceLoader.load(BackendProvider.class).stream()
                .anyMatch(p -> p.type() == CudaBackendProvider.class);
        assertTrue(found, "META-INF/services must register the CUDA provider");
    }

    @Test
    void missingDriverIsReportedWithTheSearchedPaths() {
        Availability a = CudaBackendProvider.availability(List.of(Path.of("/nonexistent/libcuda.so.1")));
        assertFalse(a.available());
        assertTrue(a.reason().startsWith("no NVIDIA driver found (libcuda.so.1 not in [/nonexistent/libcuda.so.1])"), a.reason());
        assertTrue(a.reason().endsWith("; " + CudaBackendProvider.INTERPRETED), "says where the kernels are tested: " + a.reason());
    }

    @Test
    void theLibraryPathIsSearchedBeforeTheUsualFolders() {
        var paths = CudaBackendProvider.driverLocations("/opt/a:/opt/b");
        assertEquals(List.of(Path.of("/opt/a/libcuda.so.1"), Path.of("/opt/b/libcuda.so.1")), paths.subList(0, 2));
        assertTrue(paths.contains(Path.of("/usr/lib/x86_64-linux-gnu/libcuda.so.1")));
    }

    @Test
    void nativesThatCannotLoadAreReportedWithTheirError() throws IOException {
        var probe = CudaBackendProvider.probe(presentDriver(), () -> {
            throw new UnsatisfiedLinkError("libcuda.so.1: cannot open shared object file: No such file or directory");
        }, () -> "unused");
        assertFalse(probe.availability().available());
        assertTrue(probe.availability().reason().startsWith("JCuda's natives failed to load: UnsatisfiedLinkError: "
                + "libcuda.so.1: cannot open shared object file"), probe.availability().reason());
        assertNull(probe.driver());
    }

    @Test
    void jcudasOwnNativesFailWithoutALoadableDriver() throws IOException {
        assumeFalse(driverHere(), "a CUDA driver is present here");
        var probe = CudaBackendProvider.probe(presentDriver(), JCudaDriver::open, () -> "unused");
        String reason = probe.availability().reason();
        assertTrue(reason.startsWith("JCuda's natives failed to load: UnsatisfiedLinkError: Error while loading native library"), reason);
        assertTrue(reason.contains("libcuda.so.1: cannot open shared object file"), "names the missing library in one line: " + reason);
        assertFalse(reason.contains("\n"), reason);
    }

    @Test
    void aFailedCuInitIsReportedWithTheDriversError() throws IOException {
        var probe = CudaBackendProvider.probe(presentDriver(), () -> {
            throw new CudaException("cuInit", "CUDA_ERROR_NO_DEVICE", "");
        }, () -> "unused");
        assertTrue(probe.availability().reason().startsWith("the NVIDIA driver did not initialise: cuInit: CUDA_ERROR_NO_DEVICE"),
                probe.availability().reason());
    }

    @Test
    void aDriverWithoutDevicesIsUnavailable() throws IOException {
        var probe = CudaBackendProvider.probe(presentDriver(), () -> new FakeDeviceMemory(1L << 30, 0), () -> "unused");
        assertTrue(probe.availability().reason().startsWith("the NVIDIA driver (fake device memory) finds no CUDA device"),
                probe.availability().reason());
    }

    @Test
    void aWorkingDriverIsDescribedByDriverDevicesAndBlasRoute() throws IOException {
        var probe = CudaBackendProvider.probe(presentDriver(), () -> new FakeDeviceMemory(80L << 30, 2), () -> "cuBLAS via JCublas");
        assertTrue(probe.availability().reason().startsWith("fake device memory; cuda:0 Fake GPU (sm_90, 80.00 GiB, 132 SMs), "
                + "cuda:1 Fake GPU (sm_90, 80.00 GiB, 132 SMs); BLAS: cuBLAS via JCublas"), probe.availability().reason());
        assertEquals(CudaBackendFactory.READY, probe.availability().available(), "available once the build has the backend's ops");
    }

    @Test
    void selectionSkipsTheUnavailableBackendWithItsReason() {
        // On a machine with a GPU and driver the provider is available; the skip is tested where it is not.
        assumeFalse(new CudaBackendProvider().availability().available(), "a CUDA driver is present here");
        var e = assertThrows(IllegalStateException.class, () -> Backends.get("cuda"));
        assertTrue(e.getMessage().startsWith("backend 'cuda' cannot run here: "), e.getMessage());
        assertTrue(Backends.describe().stream().anyMatch(l -> l.startsWith("cuda (priority 200): unavailable, ")));
        assertEquals("reference", Backends.defaultBackend().name(), "falls back to the next available provider");
    }

    @Test
    void creatingAnUnavailableBackendSaysWhy() {
        assumeFalse(new CudaBackendProvider().availability().available(), "a CUDA driver is present here");
        var e = assertThrows(UnsupportedOperationException.class, () -> new CudaBackendProvider().create());
        assertTrue(e.getMessage().startsWith("cuda backend: "), e.getMessage());
        assertTrue(e.getMessage().contains(CudaBackendProvider.INTERPRETED), e.getMessage());
        assertEquals("cuda", new CudaBackendProvider().name());
    }
}
