package dev.symbiont.core.distributed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;

/**
 * {@code size} ranks as threads over a fresh {@link LocalCommunicator#group(int, Duration)} per
 * check. A rank whose check fails aborts the group, so the others stop waiting at their next
 * collective instead of running into the timeout. A {@link RankSetup} runs the checks on another
 * communicator bootstrapped over the local one (NCCL's, on each rank's own device).
 */
public final class LocalRanks implements Ranks {
    /** What a rank runs a check with; closing it undoes what {@link RankSetup#open} did. */
    public interface RankContext extends AutoCloseable {
        Communicator communicator();

        @Override
        void close();
    }

    /** Makes, on the rank's own thread, what the rank of {@code local} runs a check with. */
    @FunctionalInterface
    public interface RankSetup {
        RankContext open(Communicator local);
    }

    private final int size;
    private final Duration timeout;
    private final RankSetup setup;
    private final String description;

    public LocalRanks(int size, Duration timeout) {
        this(size, timeout, local -> new RankContext() {
            @Override public Communicator communicator() { return local; }
            @Override public void close() {}
        }, size + " local ranks");
    }

    /** {@code size} threads, each running the checks with what {@code setup} makes over its local communicator. */
    public LocalRanks(int size, Duration timeout, RankSetup setup, String description) {
        this.size = size;
        this.timeout = timeout;
        this.setup = setup;
        this.description = description;
    }

    @Override public int size() { return size; }

    @Override
    public void run(CollectiveCheck check) throws Exception {
        List<Communicator> group = LocalCommunicator.group(size, timeout);
        Path shared = Files.createTempDirectory("symbiont-ranks-");
        ExecutorService threads = Executors.newFixedThreadPool(size);
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (Communicator c : group) ranks.add(threads.submit(() -> runRank(check, c, shared, setup)));
            // Every rank's failure, since a rank that aborted the group makes the others fail too.
            List<String> failures = new ArrayList<>();
            Throwable firstCause = null;
            for (int r = 0; r < size; r++) {
                try {
                    ranks.get(r).get();
                } catch (ExecutionException e) {
                    failures.add("rank " + r + ": " + e.getCause());
                    if (firstCause == null) firstCause = e.getCause();
                }
            }
            if (!failures.isEmpty()) throw new AssertionError(check.name() + " on " + size + " ranks: " + String.join("; ", failures), firstCause);
        } finally {
            threads.shutdownNow();
            deleteTree(shared);
        }
    }

    private static Void runRank(CollectiveCheck check, Communicator c, Path shared, RankSetup setup) throws Exception {
        try (RankContext context = setup.open(c)) {
            check.body().run(context.communicator(), shared);
            return null;
        } catch (Exception | AssertionError e) {
            try {
                c.abort(check.name() + " failed on rank " + c.rank() + ": " + e.getMessage(), 1);
            } catch (CollectiveException expected) {
                // a local abort breaks the group and throws; the rank's own failure is what matters
            }
            throw e;
        }
    }

    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    @Override
    public String toString() { return description; }
}
