package dev.symbiont.cuda;

import dev.symbiont.core.backend.Availability;
import dev.symbiont.core.backend.BackendProvider;
import dev.symbiont.core.backend.Backends;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class CudaBackendProviderTest {

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
        assertTrue(a.reason().contains("/nonexistent/libcuda.so.1"), a.reason());
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
        assertEquals("cuda", new CudaBackendProvider().name());
    }
}
