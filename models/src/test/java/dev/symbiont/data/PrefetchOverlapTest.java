package dev.symbiont.data;

import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Prefetch prepares batches on a worker ahead of the caller. Asserted by counted events (which
 * thread read which example, and how many were read while the caller held a batch), not by
 * timing: a loaded machine changes how long things take, not what happens.
 */
class PrefetchOverlapTest {
    private static final int BATCHES = 20, BATCH_SIZE = 4;

    /** A dataset that records the thread of every read. */
    private static final class Recording implements Dataset<Integer> {
        final Queue<Thread> readers = new ConcurrentLinkedQueue<>();
        @Override public int size() { return BATCHES * BATCH_SIZE; }
        @Override public Integer get(int i) { readers.add(Thread.currentThread()); return i; }
    }

    @Test
    void withPrefetchTheWorkerPreparesTheNextBatchesWhileTheCallerHoldsOne() throws InterruptedException {
        Recording data = new Recording();
        var loader = DataLoader.builder(data, List::copyOf).batchSize(BATCH_SIZE).prefetch(2).build();
        try (var batches = loader.epoch(0)) {
            assertEquals(List.of(0, 1, 2, 3), batches.next());
            // The caller holds batch 0 and asks for nothing; the worker fills the queue (batches 1 and 2) meanwhile.
            for (int polls = 0; data.readers.size() < 3 * BATCH_SIZE && polls < 30_000; polls++) Thread.sleep(1);
            assertTrue(data.readers.size() >= 3 * BATCH_SIZE, "read ahead: " + data.readers.size());
            assertFalse(data.readers.contains(Thread.currentThread()), "every example is read on the worker");
            int count = 1;
            while (batches.hasNext()) {
                assertEquals(BATCH_SIZE * count, batches.next().getFirst());
                count++;
            }
            assertEquals(BATCHES, count);
        }
    }

    @Test
    void withoutPrefetchTheCallerReadsEachBatchItselfWhenItAsks() {
        Recording data = new Recording();
        var loader = DataLoader.builder(data, List::copyOf).batchSize(BATCH_SIZE).prefetch(0).build();
        try (var batches = loader.epoch(0)) {
            batches.next();
            assertEquals(BATCH_SIZE, data.readers.size(), "nothing read ahead");
            batches.forEachRemaining(b -> { });
        }
        assertEquals(BATCHES * BATCH_SIZE, data.readers.size());
        assertTrue(data.readers.stream().allMatch(t -> t == Thread.currentThread()));
    }

    @Test
    void theProfilerShouldShowPreparationOnTheWorkerAndOneWaitPerBatch() {
        var loader = DataLoader.builder(new Recording(), List::copyOf).batchSize(BATCH_SIZE).prefetch(2).build();
        ProfileReport report;
        try (ProfilerSession session = Profiler.start("prefetch")) {
            try (var batches = loader.epoch(0)) {
                batches.forEachRemaining(b -> { });
            }
            report = session.report();
        }
        ProfileReport.OpRow prepare = row(report, "data.prepare"), wait = row(report, "data.wait");
        assertEquals(OpCategory.DATA, prepare.category());
        assertEquals(BATCHES, wait.calls());
        assertTrue(report.threads() >= 2, "preparation is recorded on the worker thread: " + report.table());
    }

    private static ProfileReport.OpRow row(ProfileReport report, String name) {
        return report.ops().stream().filter(r -> r.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + name + " in\n" + report.table()));
    }
}
