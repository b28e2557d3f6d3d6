package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.distributed.CollectiveException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The MPI thread: calls in submission order on one thread, nothing after the last, failures that stop the queue, and the watchdog. */
class CollectiveQueueTest {
    private static final Duration LONG = Duration.ofMinutes(5);

    @Test
    void callsRunInSubmissionOrderOnOneThread() {
        List<String> ran = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = Collections.synchronizedList(new ArrayList<>());
        CollectiveQueue q = new CollectiveQueue("test-mpi", LONG, what -> {});
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            String name = "call " + i;
            done.add(q.submit(name, () -> { ran.add(name); threads.add(Thread.currentThread()); }));
        }
        CompletableFuture<Void> last = q.finish("last", () -> ran.add("last"));
        assertSame(last, q.finish("last again", () -> ran.add("last again")), "finish is idempotent");
        CollectiveQueue.await(last);
        done.forEach(CollectiveQueue::await);
        assertEquals(51, ran.size());
        for (int i = 0; i < 50; i++) assertEquals("call " + i, ran.get(i));
        assertEquals(1, threads.stream().distinct().count());
        assertTrue(threads.getFirst().isDaemon() && threads.getFirst().getName().equals("test-mpi"));
        IllegalStateException late = assertThrows(IllegalStateException.class, () -> CollectiveQueue.await(q.submit("barrier", () -> ran.add("late"))));
        assertEquals("barrier: the communicator is closed", late.getMessage());
        assertEquals(51, ran.size(), "nothing runs after the last call");
    }

    @Test
    void afterAFailedCallLaterOnesFailNamingItExceptThoseThatRunRegardless() {
        CollectiveQueue q = new CollectiveQueue("test-mpi", LONG, what -> {});
        CollectiveException boom = new CollectiveException("MPI_Allreduce failed: MPI_ERR_TRUNCATE: message truncated");
        CompletableFuture<Void> failed = q.submit("allReduce of 7 float32 (SUM)", () -> { throw boom; });
        CompletableFuture<Void> next = q.submit("broadcast of 3 int64 from root 0", () -> {});
        assertSame(boom, assertThrows(CollectiveException.class, () -> CollectiveQueue.await(failed)));
        CollectiveException e = assertThrows(CollectiveException.class, () -> CollectiveQueue.await(next));
        assertTrue(e.getMessage().startsWith("broadcast of 3 int64 from root 0: not started, an earlier collective failed: MPI_Allreduce failed"),
                e.getMessage());
        boolean[] finalised = {false};
        CollectiveQueue.await(q.finish("MPI_Finalize", () -> finalised[0] = true));
        assertTrue(finalised[0], "the last call is made even after a failure");
    }

    @Test
    void aCallRunningPastTheTimeoutIsReportedByName() throws Exception {
        CountDownLatch reported = new CountDownLatch(1), release = new CountDownLatch(1);
        List<String> timedOut = Collections.synchronizedList(new ArrayList<>());
        CollectiveQueue q = new CollectiveQueue("test-mpi", Duration.ofMillis(50), what -> { timedOut.add(what); reported.countDown(); });
        q.submit("quick", () -> {});
        CompletableFuture<Void> stuck = q.submit("barrier", () -> awaitQuietly(release));
        assertTrue(reported.await(1, TimeUnit.MINUTES), "the watchdog never fired");
        release.countDown();
        CollectiveQueue.await(stuck);
        assertEquals(List.of("barrier"), timedOut);
        CollectiveQueue.await(q.finish("MPI_Finalize", () -> {}));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
