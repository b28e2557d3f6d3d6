package dev.symbiont.cli;

import dev.symbiont.bench.compare.CompareRun;
import sun.misc.SignalHandler;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What Ctrl-C does to {@code compare}: the first press stops the run after the measurement in
 * flight, which then writes the report of what it measured (results.json already holds it); the
 * second ends the process at once, results.json intact. A shutdown (SIGTERM) stops the run the
 * same way and waits, up to two minutes, for its report.
 */
final class CompareStop implements AutoCloseable {
    /** The exit code of an interrupted command, 128 + SIGINT. */
    static final int INTERRUPTED = 130;

    private final CompareRun run;
    private final AtomicInteger presses = new AtomicInteger();
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;
    private final SignalHandler previous;

    /** Takes Ctrl-C and shutdowns for {@code run} until closed. */
    CompareStop(CompareRun run) {
        this.run = run;
        this.hook = new Thread(() -> {
            run.stop();
            try {
                finished.await(2, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "compare-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        this.previous = Sigint.take(this::press);
    }

    /** One Ctrl-C: the signal handler calls it. */
    void press() {
        if (presses.incrementAndGet() == 1) {
            run.stop();
            System.err.println("\ncompare: stopping after the measurement in flight, then writing the report — Ctrl-C again to stop now");
        } else {
            System.err.println("\ncompare: stopped; results.json keeps every finished measurement (symbiont compare --resume measures the rest)");
            finished.countDown();
            System.exit(INTERRUPTED);
        }
    }

    @Override
    public void close() {
        Sigint.restore(previous);
        finished.countDown();
        Sigint.removeHook(hook);
    }
}
