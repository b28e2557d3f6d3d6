package dev.symbiont.core.memory;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class MemoryMeasureTest {
    private static final long MIB = 1 << 20;

    @Test
    void should_count_the_peak_of_live_buffers_not_garbage() {
        Backend be = new ReferenceBackend();
        try (var scope = Backends.use(be)) {
            // Ten 1 MiB temporaries, each garbage before the next: a live peak of ~1 MiB, not 10.
            long peak = MemoryMeasure.peakAbove(be, () -> {
                for (int i = 0; i < 10; i++) Tensor.zeros(256, 1024).sum();
            });
            assertTrue(peak >= MIB && peak < 3 * MIB, "peak " + peak);
        }
    }

    @Test
    void should_collect_only_when_an_allocation_could_raise_the_peak() {
        Backend be = new ReferenceBackend();
        try (var scope = Backends.use(be)) {
            long[] collections = new long[1];
            // A 4 MiB high, then ten 256 KiB temporaries under it: exact, and without a collection for each of them.
            long peak = MemoryMeasure.peakAbove(be, () -> {
                Tensor.zeros(1024, 1024).sum();
                collections[0] = fullCollections();
                for (int i = 0; i < 10; i++) Tensor.zeros(256, 256).sum();
                collections[0] = fullCollections() - collections[0];
            });
            assertEquals(4 * MIB, peak);
            assertTrue(collections[0] < 10, collections[0] + " collections for ten allocations under the peak");
        }
    }

    private static long fullCollections() {
        return java.lang.management.ManagementFactory.getGarbageCollectorMXBeans().stream()
                .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionCount).sum();
    }

    @Test
    void should_count_what_the_work_leaves_alive() {
        Backend be = new ReferenceBackend();
        try (var scope = Backends.use(be)) {
            long kept = MemoryMeasure.retainedBy(be, () -> Tensor.zeros(512, 1024));
            long dropped = MemoryMeasure.retainedBy(be, () -> Tensor.zeros(512, 1024).sum());
            assertEquals(2 * MIB, kept);
            assertEquals(0, dropped);
        }
    }
}
