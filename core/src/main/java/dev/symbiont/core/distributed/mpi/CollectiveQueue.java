package dev.symbiont.core.distributed.mpi;

import dev.symbiont.core.distributed.CollectiveException;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The one thread that makes every MPI call of a communicator, in the order they were submitted
 * (collectives match by order across ranks, and MPI is initialised for serialised calls), and a
 * watchdog that calls {@code onTimeout} with a call's description when it has run longer than
 * the timeout. After a call fails, later ones fail at once naming that failure: the ranks no
 * longer agree on which collective comes next.
 */
final class CollectiveQueue {
    /** A call made on the MPI thread. */
    @FunctionalInterface
    interface Call {
        void run();
    }

    private record Task(String description, Call call, boolean evenAfterFailure, CompletableFuture<Void> done) {}

    private static final Task STOP = new Task("stop", () -> {}, true, new CompletableFuture<>());

    private final LinkedBlockingQueue<Task> tasks = new LinkedBlockingQueue<>();
    private final Duration timeout;
    private final Consumer<String> onTimeout;
    private final ScheduledExecutorService watchdog;
    private final Thread thread;
    private volatile RuntimeException failure;
    private boolean finished;
    private CompletableFuture<Void> last;

    CollectiveQueue(String name, Duration timeout, Consumer<String> onTimeout) {
        this.timeout = timeout;
        this.onTimeout = onTimeout;
        ScheduledThreadPoolExecutor w = new ScheduledThreadPoolExecutor(1, r -> daemon(r, name + "-watchdog"));
        w.setRemoveOnCancelPolicy(true);
        this.watchdog = w;
        this.thread = daemon(this::loop, name);
        thread.start();
    }

    /**
     * Queues {@code call}; the future completes (or fails) when the MPI thread has made it. After
     * {@link #finish} it fails at once: nothing may follow MPI's last call.
     */
    CompletableFuture<Void> submit(String description, Call call) { return submit(description, call, false); }

    /**
     * Queues {@code call} as the last one (made even after a failure: finalisation), after which
     * the thread and the watchdog stop. Calling it again returns the first call's future.
     */
    synchronized CompletableFuture<Void> finish(String description, Call call) {
        if (last == null) {
            last = submit(description, call, true);
            finished = true;
            tasks.add(STOP);
        }
        return last;
    }

    /** {@link #submit} and wait: the blocking collectives, initialisation and finalisation. */
    void run(String description, Call call, boolean evenAfterFailure) {
        await(submit(description, call, evenAfterFailure));
    }

    /** Waits for {@code done}, rethrowing its failure as it was thrown on the MPI thread. */
    static void await(CompletableFuture<Void> done) {
        try {
            done.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new CollectiveException(String.valueOf(e.getCause()), e.getCause());
        }
    }

    private synchronized CompletableFuture<Void> submit(String description, Call call, boolean evenAfterFailure) {
        if (finished) return CompletableFuture.failedFuture(new IllegalStateException(description + ": the communicator is closed"));
        Task task = new Task(description, call, evenAfterFailure, new CompletableFuture<>());
        tasks.add(task);
        return task.done();
    }

    private void loop() {
        while (true) {
            Task task;
            try {
                task = tasks.take();
            } catch (InterruptedException e) {
                return;
            }
            if (task == STOP) {
                watchdog.shutdownNow();
                return;
            }
            RuntimeException earlier = failure;
            if (earlier != null && !task.evenAfterFailure()) {
                task.done().completeExceptionally(new CollectiveException(task.description()
                        + ": not started, an earlier collective failed: " + earlier.getMessage(), earlier));
                continue;
            }
            ScheduledFuture<?> alarm = watchdog.schedule(() -> onTimeout.accept(task.description()), timeout.toNanos(), TimeUnit.NANOSECONDS);
            try {
                task.call().run();
                task.done().complete(null);
            } catch (RuntimeException | Error e) {
                RuntimeException failed = e instanceof RuntimeException r ? r : new CollectiveException(task.description() + ": " + e, e);
                if (failure == null) failure = failed;
                task.done().completeExceptionally(failed);
            } finally {
                alarm.cancel(false);
            }
        }
    }

    private static Thread daemon(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }
}
