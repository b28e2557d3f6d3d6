package dev.symbiont.nn.parallel;

import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.core.distributed.LocalCommunicator;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Runs one body per rank, each on its own thread with a {@link LocalCommunicator} of one group
 * (each thread on the default backend). A hang guard of {@link #HANG_GUARD} wraps the run; the
 * communicator's own timeout is longer, so a rank left waiting fails the guard instead of ending
 * in the communicator's timeout error, which a test could mistake for the error it expects.
 */
public final class RankThreads {
    public static final Duration HANG_GUARD = Duration.ofSeconds(30);
    private static final Duration COMMUNICATOR_TIMEOUT = Duration.ofSeconds(120);

    private RankThreads() {}

    /** What one rank's body returned or threw. */
    public record Outcome<T>(T result, Throwable failure) {}

    /** Each rank's result, in rank order; a failure on any rank fails the test with it. */
    public static <T> List<T> results(int ranks, BiFunction<Integer, Communicator, T> body) {
        List<T> out = new ArrayList<>();
        for (Outcome<T> o : outcomes(ranks, body)) {
            if (o.failure() != null) throw new AssertionError("a rank failed: " + o.failure(), o.failure());
            out.add(o.result());
        }
        return out;
    }

    /** Each rank's outcome, in rank order. */
    public static <T> List<Outcome<T>> outcomes(int ranks, BiFunction<Integer, Communicator, T> body) {
        return assertTimeoutPreemptively(HANG_GUARD, () -> {
            List<Communicator> group = LocalCommunicator.group(ranks, COMMUNICATOR_TIMEOUT);
            ExecutorService pool = Executors.newFixedThreadPool(ranks);
            try {
                List<Future<T>> futures = new ArrayList<>();
                for (int r = 0; r < ranks; r++) {
                    int rank = r;
                    futures.add(pool.submit(() -> body.apply(rank, group.get(rank))));
                }
                List<Outcome<T>> out = new ArrayList<>();
                for (Future<T> f : futures) {
                    try {
                        out.add(new Outcome<>(f.get(), null));
                    } catch (ExecutionException e) {
                        out.add(new Outcome<>(null, e.getCause()));
                    }
                }
                return out;
            } finally {
                pool.shutdownNow();
            }
        }, "the ranks did not finish within the hang guard: a rank is waiting in a collective");
    }
}
