package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.distributed.CollectiveException;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A queued collective's work: the write-back once, on the awaiting thread, and the same failure every time. */
class MpiWorkTest {
    @Test
    void theResultIsWrittenBackOnceOnTheAwaitingThreadAndTheBufferReleased() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicInteger writes = new AtomicInteger(), releases = new AtomicInteger();
        Thread[] writer = new Thread[1];
        MpiWork w = new MpiWork(done, () -> { writes.incrementAndGet(); writer[0] = Thread.currentThread(); }, releases::incrementAndGet);
        assertFalse(w.isCompleted());
        done.complete(null);
        assertTrue(w.isCompleted());
        w.await();
        w.await();
        assertEquals(1, writes.get());
        assertEquals(1, releases.get());
        assertSame(Thread.currentThread(), writer[0]);
    }

    @Test
    void aFailedCollectiveThrowsTheSameExceptionOnEveryAwaitAndWritesNothing() {
        CollectiveException failure = new CollectiveException("allReduce of 7 float32 (SUM) failed on rank 0 of 2: MPI_ERR_TRUNCATE");
        AtomicInteger writes = new AtomicInteger(), releases = new AtomicInteger();
        MpiWork w = new MpiWork(CompletableFuture.failedFuture(failure), writes::incrementAndGet, releases::incrementAndGet);
        assertTrue(w.isCompleted());
        assertSame(failure, assertThrows(CollectiveException.class, w::await));
        assertSame(failure, assertThrows(CollectiveException.class, w::await));
        assertEquals(0, writes.get());
        assertEquals(1, releases.get());
    }
}
