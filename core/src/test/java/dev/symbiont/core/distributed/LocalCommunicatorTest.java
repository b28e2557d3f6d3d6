package dev.symbiont.core.distributed;

import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * How a {@link LocalCommunicator} group fails: ranks that disagree on a collective, a rank that
 * never arrives, an abort, and use after close; each ends in an exception on every rank that
 * names the collective and the ranks, never in a hang.
 */
class LocalCommunicatorTest {
    private static final Duration SHORT = Duration.ofMillis(300);

    @Test
    void ranksThatDisagreeOnTheSizeFailOnEveryRankNamingBothSizes() throws Exception {
        List<Communicator> group = LocalCommunicator.group(2, Duration.ofMinutes(1));
        List<Throwable> failures = onEveryRank(group, c -> c.allReduce(Tensor.zeros(c.rank() == 0 ? 4 : 5), Reduction.SUM).await());
        for (int r = 0; r < 2; r++) {
            CollectiveException e = assertInstanceOf(CollectiveException.class, failures.get(r), "rank " + r);
            for (String f : List.of("allReduce", "disagree", "rank 0 allReduce of 4 float32", "rank 1 allReduce of 5 float32")) {
                assertTrue(e.getMessage().contains(f), "rank " + r + ": '" + e.getMessage() + "' does not mention " + f);
            }
        }
        CollectiveException later = assertThrows(CollectiveException.class, () -> group.get(0).barrier());
        assertTrue(later.getMessage().contains("disagree"), "the group stays broken: " + later.getMessage());
    }

    @Test
    void ranksThatDisagreeOnTheCollectiveFailOnEveryRank() throws Exception {
        List<Throwable> failures = onEveryRank(LocalCommunicator.group(2, Duration.ofMinutes(1)), c -> {
            if (c.rank() == 0) c.broadcast(Tensor.zeros(3), 0).await();
            else c.allReduce(Tensor.zeros(3), Reduction.MAX).await();
        });
        for (Throwable t : failures) {
            assertInstanceOf(CollectiveException.class, t);
            assertTrue(t.getMessage().contains("broadcast of 3 float32 from root 0") && t.getMessage().contains("allReduce of 3 float32 (MAX)"), t.getMessage());
        }
    }

    @Test
    void aRankThatNeverArrivesTimesOutNamingTheMissingRank() throws Exception {
        List<Communicator> group = LocalCommunicator.group(3, SHORT);
        List<Throwable> failures = onEveryRank(group, c -> { if (c.rank() != 2) c.allReduce(Tensor.zeros(7), Reduction.SUM).await(); });
        for (int r = 0; r < 2; r++) {
            CollectiveException e = assertInstanceOf(CollectiveException.class, failures.get(r), "rank " + r);
            assertTrue(e.getMessage().contains("allReduce of 7 float32 (SUM)"), e.getMessage());
            assertTrue(e.getMessage().contains("ranks [2] did not reach this collective"), e.getMessage());
        }
        assertEquals(null, failures.get(2), "rank 2 called nothing");
    }

    @Test
    void anAbortFailsEveryOtherRankWithItsMessage() throws Exception {
        List<Throwable> failures = onEveryRank(LocalCommunicator.group(2, Duration.ofMinutes(1)), c -> {
            if (c.rank() == 1) c.abort("out of data", 7);
            else c.barrier();
        });
        for (Throwable t : failures) {
            assertInstanceOf(CollectiveException.class, t);
            assertTrue(t.getMessage().contains("rank 1 aborted the job (exit code 7): out of data"), t.getMessage());
        }
    }

    @Test
    void aClosedCommunicatorRefusesCollectivesNamingThem() {
        Communicator single = LocalCommunicator.group(1).getFirst();
        single.close();
        single.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> single.allReduce(Tensor.zeros(2), Reduction.SUM));
        assertTrue(e.getMessage().contains("allReduce") && e.getMessage().contains("closed"), e.getMessage());
        assertThrows(IllegalStateException.class, single::barrier);
    }

    @FunctionalInterface
    private interface RankBody {
        void run(Communicator c) throws Exception;
    }

    /** Runs {@code body} on every rank's thread; element r is rank r's exception, or null. */
    private static List<Throwable> onEveryRank(List<Communicator> group, RankBody body) throws InterruptedException {
        ExecutorService threads = Executors.newFixedThreadPool(group.size());
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (Communicator c : group) ranks.add(threads.submit((Callable<Void>) () -> { body.run(c); return null; }));
            List<Throwable> failures = new ArrayList<>();
            for (Future<?> f : ranks) {
                try {
                    f.get();
                    failures.add(null);
                } catch (ExecutionException e) {
                    failures.add(e.getCause());
                }
            }
            return failures;
        } finally {
            threads.shutdownNow();
        }
    }
}
