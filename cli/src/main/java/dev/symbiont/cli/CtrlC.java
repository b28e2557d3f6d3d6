package dev.symbiont.cli;

import dev.symbiont.train.Cancellation;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * While open, Ctrl-C (or any JVM shutdown) requests {@code cancellation} and holds the shutdown
 * until the command closes this, so the run can write its checkpoint and files first.
 */
final class CtrlC implements AutoCloseable {
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;

    CtrlC(Cancellation cancellation) {
        hook = new Thread(() -> {
            cancellation.request("interrupted");
            try {
                finished.await(2, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "symbiont-ctrl-c");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    @Override
    public void close() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running: it returns now that the files are written.
        }
    }
}
