package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.backend.BackendProvider;
import dev.symbiont.core.backend.MemoryStats;
import dev.symbiont.core.backend.Storage;
import org.junit.jupiter.api.Test;

import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReferenceBackendTest {

    @Test
    void should_count_allocations_peak_and_releases() {
        ReferenceBackend backend = new ReferenceBackend();
        assertEquals(new MemoryStats(0, 0), backend.memory());
        Storage a = backend.allocate(DType.FLOAT32, 100 * 1024);       // 409600 bytes
        Storage b = backend.allocate(DType.INT64, 10 * 1024);          // 81920 bytes
        assertEquals(new MemoryStats(491520, 491520), backend.memory());
        a.release();
        a.release();                                                   // idempotent
        assertEquals(new MemoryStats(81920, 491520), backend.memory());
        backend.resetPeakMemory();
        assertEquals(new MemoryStats(81920, 81920), backend.memory());
        Storage c = backend.upload(DType.BFLOAT16, new short[3 * 1024]); // 6144 bytes
        Storage d = backend.full(DType.INT32, 2 * 1024, 1);            // 8192 bytes
        assertEquals(new MemoryStats(96256, 96256), backend.memory());
        b.release();
        c.release();
        d.release();
        assertEquals(new MemoryStats(0, 96256), backend.memory());
    }

    @Test
    void should_count_results_of_computations() {
        ReferenceBackend backend = new ReferenceBackend();
        Storage x = backend.upload(DType.FLOAT32, new float[4096]);
        Storage y = backend.cast(x, dev.symbiont.core.Layout.contiguous(4096), DType.FLOAT16);
        assertEquals(16384 + 8192, backend.memory().allocatedBytes());
        assertEquals(backend, y.backend());
        x.release();
        y.release();
        assertEquals(0, backend.memory().allocatedBytes());
    }

    @Test
    void should_not_count_buffers_under_the_tracking_floor() {
        ReferenceBackend backend = new ReferenceBackend();
        int justUnder = (int) (dev.symbiont.core.memory.MemoryTracker.DEFAULT_MIN_TRACKED_BYTES / 4) - 1;
        Storage small = backend.allocate(DType.FLOAT32, justUnder);
        assertEquals(new MemoryStats(0, 0), backend.memory());
        small.release();
        Storage atFloor = backend.allocate(DType.FLOAT32, justUnder + 1);
        assertEquals(dev.symbiont.core.memory.MemoryTracker.DEFAULT_MIN_TRACKED_BYTES, backend.memory().allocatedBytes());
        atFloor.release();
        assertEquals(0, backend.memory().allocatedBytes());
    }

    @Test
    void should_be_found_by_the_service_loader() {
        BackendProvider provider = ServiceLoader.load(BackendProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("reference"))
                .findFirst().orElseThrow();
        assertEquals(0, provider.priority());
        assertTrue(provider.availability().available());
        assertInstanceOf(ReferenceBackend.class, provider.create());
        assertEquals("reference", provider.create().name());
    }
}
