package dev.symbiont.data;

import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Prefetch must hide data preparation behind the caller's compute. Preparation and "compute"
 * both sleep, so the measurement holds on a loaded two-core machine; the margins are wide.
 */
class PrefetchOverlapTest {
    private static final int BATCHES = 20;
    private static final int BATCH_SIZE = 4;
    private static final long GET_MILLIS = 2;                                   // ~8 ms to prepare a batch
    private static final long COMPUTE_MILLIS = 3 * GET_MILLIS * BATCH_SIZE / 2; // ~12 ms, a bit more than that

    private static DataLoader.Stats run(int prefetch) throws InterruptedException {
        var loader = DataLoader.builder(DataLoaderTest.slow(BATCHES * BATCH_SIZE, GET_MILLIS), List::copyOf)
                .batchSize(BATCH_SIZE).prefetch(prefetch).build();
        try (var warmUp = loader.epoch(0, loader.batchesPerEpoch() - 2)) { // class loading and JIT, not measured
            for (List<Integer> ignored : warmUp) Thread.sleep(COMPUTE_MILLIS);
        }
        DataLoader.Stats before = loader.stats();
        try (var batches = loader.epoch(1)) {
            for (List<Integer> ignored : batches) Thread.sleep(COMPUTE_MILLIS);
        }
        return loader.stats().minus(before);
    }

    @Test
    void withPrefetchTheCallerShouldWaitMuchLessThanPreparationTakes() throws InterruptedException {
        DataLoader.Stats s = run(2);
        assertEquals(BATCHES, s.batches());
        assertTrue(s.prepareNanos() >= BATCHES * BATCH_SIZE * GET_MILLIS * 1_000_000L, s.toString());
        // Only the first batch cannot overlap anything; allow several times that for scheduling noise.
        assertTrue(s.waitNanos() < s.prepareNanos() / 2, "wait " + s.waitNanos() / 1e6 + " ms vs prepare "
                + s.prepareNanos() / 1e6 + " ms");
    }

    @Test
    void theProfilerShouldShowPreparationOnTheWorkerAndLittleWaitingInTheLoop() throws InterruptedException {
        var loader = DataLoader.builder(DataLoaderTest.slow(BATCHES * BATCH_SIZE, GET_MILLIS), List::copyOf)
                .batchSize(BATCH_SIZE).prefetch(2).build();
        try (var warmUp = loader.epoch(0, loader.batchesPerEpoch() - 2)) {
            for (List<Integer> ignored : warmUp) Thread.sleep(COMPUTE_MILLIS);
        }
        ProfileReport report;
        try (ProfilerSession session = Profiler.start("prefetch")) {
            try (var batches = loader.epoch(1)) {
                for (List<Integer> ignored : batches) Thread.sleep(COMPUTE_MILLIS);
            }
            report = session.report();
        }
        ProfileReport.OpRow prepare = row(report, "data.prepare"), wait = row(report, "data.wait");
        assertEquals(OpCategory.DATA, prepare.category());
        assertEquals(BATCHES, wait.calls());
        assertTrue(prepare.selfNanos() >= BATCHES * BATCH_SIZE * GET_MILLIS * 1_000_000L, report.table());
        assertTrue(wait.selfNanos() < prepare.selfNanos() / 2, report.table());
        assertTrue(report.threads() >= 2, "preparation is recorded on the worker thread: " + report.table());
    }

    private static ProfileReport.OpRow row(ProfileReport report, String name) {
        return report.ops().stream().filter(r -> r.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + name + " in\n" + report.table()));
    }

    @Test
    void withoutPrefetchTheCallerShouldWaitForAllOfIt() throws InterruptedException {
        DataLoader.Stats s = run(0);
        assertEquals(BATCHES, s.batches());
        assertTrue(s.waitNanos() >= s.prepareNanos(), s.toString());
        assertTrue(s.waitNanos() < 2 * s.prepareNanos() + 50_000_000L, "wait should be about preparation: " + s);
    }
}
