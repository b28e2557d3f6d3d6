package dev.symbiont.core.profile;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Session life cycle: off means nothing recorded, one session at a time, any thread may record. */
class ProfilerSessionTest {

    private static Tensor randn(int... shape) { return Tensor.randn(new Generator(7), shape); }

    @Test
    void withoutASessionScopesAreOneSharedNoOpAndNothingIsRecorded() {
        Tensor a = randn(8), b = randn(8);
        assertFalse(Profiler.isActive());
        assertSame(Profiler.op("x", OpCategory.OTHER), Profiler.op("y", OpCategory.MATMUL, 10, 10),
                "off must hand out one shared scope, not allocate");
        assertSame(Profiler.Scope.NONE, Profiler.backward("matmul"));
        a.add(b).exp();
        ProfilerSession session = Profiler.start("after-the-ops");
        ProfileReport report;
        try (session) {
            assertTrue(Profiler.isActive());
            report = session.report();
        }
        assertFalse(Profiler.isActive());
        assertTrue(report.ops().isEmpty(), "ops run before the session must not appear: " + report.ops());
        a.add(b);
        assertTrue(session.report().ops().isEmpty(), "ops run after close must not appear");
    }

    @Test
    void aKnownSequenceOfOpsIsCountedPerNameAndCategory() {
        Tensor a = randn(4, 8), b = randn(4, 8);
        try (ProfilerSession p = Profiler.start()) {
            for (int i = 0; i < 3; i++) a.add(b);
            a.exp().exp();
            a.mul(2.0);
            ProfileReport r = p.report();
            assertEquals(3, r.op("add").orElseThrow().calls());
            assertEquals(3 * 32, r.op("add").orElseThrow().flops(), "one FLOP per result element");
            assertEquals(3 * 3 * 32 * 4, r.op("add").orElseThrow().bytes(), "two operands and the result, float32");
            assertEquals(2, r.op("exp").orElseThrow().calls());
            assertEquals(1, r.op("mul").orElseThrow().calls(), "a scalar op is one op, its scalar's creation included");
            assertEquals(OpCategory.ELEMENTWISE, r.op("exp").orElseThrow().category());
            assertEquals(6, r.category(OpCategory.ELEMENTWISE).calls());
            assertEquals(0, r.category(OpCategory.MATMUL).calls());
            assertEquals(6 * 32, r.category(OpCategory.ELEMENTWISE).flops());
        }
    }

    @Test
    void startingASecondSessionThrowsNamingTheFirst() {
        try (ProfilerSession first = Profiler.start("training-step")) {
            var e = assertThrows(IllegalStateException.class, () -> Profiler.start("eval"));
            assertTrue(e.getMessage().contains("'training-step'"), e.getMessage());
            assertTrue(e.getMessage().contains("'eval'"), e.getMessage());
            assertTrue(first.isActive(), "the failed start must not end the first session");
        }
        try (ProfilerSession again = Profiler.start("eval")) {
            assertTrue(again.isActive());
        }
    }

    @Test
    void closingAStaleSessionAgainDoesNotEndANewerOne() {
        ProfilerSession old = Profiler.start("old");
        old.close();
        try (ProfilerSession current = Profiler.start("current")) {
            old.close();
            assertTrue(Profiler.isActive());
            Profiler.time("still-recorded", OpCategory.OTHER, () -> { });
            assertEquals(1, current.report().op("still-recorded").orElseThrow().calls());
        }
    }

    @Test
    void recordingFromSeveralThreadsAggregates() throws InterruptedException {
        int threads = 4, adds = 50;
        Tensor a = randn(16), b = randn(16);
        try (ProfilerSession p = Profiler.start()) {
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    Profiler.time("data.prepare", OpCategory.DATA, () -> {
                        for (int i = 0; i < adds; i++) a.add(b);
                    });
                }));
            }
            go.countDown();
            for (Thread w : workers) w.join();
            ProfileReport r = p.report();
            assertEquals(threads * adds, r.op("add").orElseThrow().calls());
            assertEquals((long) threads * adds * 16, r.op("add").orElseThrow().flops());
            assertEquals(threads, r.op("data.prepare").orElseThrow().calls());
            assertEquals(OpCategory.DATA, r.op("data.prepare").orElseThrow().category());
            assertEquals(threads, r.threads());
            // Each worker's adds nest in its own data.prepare scope: per-thread stacks, no cross-talk.
            assertEquals(0, r.category(OpCategory.DATA).flops());
            assertEquals(r.op("add").orElseThrow().flops(), r.op("data.prepare").orElseThrow().flops());
        }
    }

    @Test
    void dataTimeOnAWorkerThatOverlapsComputeShowsAsMoreRecordedTimeThanWall() throws InterruptedException {
        // By construction the worker's data.prepare runs inside the caller's compute scope.
        CountDownLatch computing = new CountDownLatch(1), prepared = new CountDownLatch(1);
        Thread worker = Thread.ofPlatform().unstarted(() -> {
            await(computing);
            Profiler.time("data.prepare", OpCategory.DATA, () -> sleep(100));
            prepared.countDown();
        });
        try (ProfilerSession p = Profiler.start()) {
            worker.start();
            Profiler.time("compute", OpCategory.MATMUL, () -> {
                computing.countDown();
                await(prepared);
            });
            worker.join();
            ProfileReport r = p.report();
            assertEquals(2, r.threads());
            assertTrue(r.category(OpCategory.DATA).selfNanos() >= 100_000_000L);
            assertTrue(r.selfNanos() > r.wallNanos(), "prefetching overlapped: " + r.selfNanos() + " vs wall " + r.wallNanos());
            assertTrue(r.table().contains("on 2 threads"), r.table());
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void timeReturnsTheResultAndRecordsEvenWhenTheBodyThrows() {
        try (ProfilerSession p = Profiler.start()) {
            assertEquals(42, Profiler.time("data.wait", OpCategory.DATA, () -> 42));
            assertThrows(IllegalStateException.class, () -> Profiler.time("data.wait", OpCategory.DATA, () -> {
                throw new IllegalStateException("boom");
            }));
            assertEquals(2, p.report().op("data.wait").orElseThrow().calls());
            // The failed scope closed: a later scope is a root, not its child.
            Profiler.time("after", OpCategory.OTHER, () -> { });
            ProfileReport r = p.report();
            assertEquals(r.op("after").orElseThrow().totalNanos(), r.op("after").orElseThrow().selfNanos());
        }
    }

    @Test
    void aScopeLeftOpenFromAnEarlierSessionIsNotAParentInTheNextOne() {
        ProfilerSession first = Profiler.start("first");
        Profiler.Scope leftOpen = Profiler.op("outer", OpCategory.OTHER);
        first.close();
        try (ProfilerSession second = Profiler.start("second")) {
            Profiler.time("inner", OpCategory.OTHER, () -> { });
            leftOpen.close();
            ProfileReport r = second.report();
            assertEquals(1, r.op("inner").orElseThrow().calls());
            assertTrue(r.op("outer").isEmpty(), "a scope of a closed session records nothing");
        }
        assertTrue(first.report().op("outer").isEmpty());
    }
}
