package dev.symbiont.cli;

import dev.symbiont.core.Scope;
import dev.symbiont.train.Cancellation;
import sun.misc.SignalHandler;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What Ctrl-C does to a training run. The first press asks the run to stop after the step in
 * flight and says so at once; the second asks it to stop now: the validation is skipped (or ended
 * after its current batch) and the checkpoint saved as soon as the step is done. Either way the
 * run writes its files and prints its summary, and the command exits with 130 (128 + SIGINT), as
 * an interrupted program does.
 *
 * <p>While {@link #install installed}, SIGINT comes here instead of starting the JVM's shutdown
 * (which a second Ctrl-C could not reach); after the second press the JVM's own handler is back,
 * so a third ends the process as usual. Any shutdown (SIGTERM, that third Ctrl-C) also requests
 * the stop, and its hook holds the JVM until the scope closes: the command closes it after its
 * files are written and its summary printed.
 */
final class CtrlC {

    private final Cancellation cancellation;
    private final String command;
    private final AtomicInteger presses = new AtomicInteger();
    private volatile SignalHandler previous;
    /** Whether a press is announced: in a data-parallel job only rank 0 speaks for all. */
    private volatile boolean speaks = true;

    CtrlC(Cancellation cancellation) { this(cancellation, "train"); }

    /** Ctrl-C for the run of {@code command}, which its messages name. */
    CtrlC(Cancellation cancellation, String command) {
        this.cancellation = cancellation;
        this.command = command;
    }

    /** One Ctrl-C: the signal handler calls it, tests call it directly. */
    void press() {
        int n = presses.incrementAndGet();
        if (n == 1) {
            long step = cancellation.request("interrupted");
            if (speaks) System.err.println(command + ": stopping after " + (step == 0 ? "the first step" : "step " + step) + " — Ctrl-C again to stop now");
        } else if (n == 2) {
            long step = cancellation.requestNow("interrupted");
            if (speaks) System.err.println(command + ": stopping now: no validation, the checkpoint is saved after "
                    + (step == 0 ? "the first step" : "step " + step));
            Sigint.restore(previous);
        }
    }

    /** Presses still stop the run but say nothing (the ranks of a job other than rank 0). */
    void silence() { speaks = false; }

    /** The run's stop request, which Ctrl-C makes. */
    Cancellation cancellation() { return cancellation; }

    /** Whether Ctrl-C was pressed: the command then exits with 130. */
    boolean pressed() { return presses.get() > 0; }

    /** Takes Ctrl-C and holds any shutdown until the returned scope closes. */
    Scope install() {
        CountDownLatch finished = new CountDownLatch(1);
        Thread hook = new Thread(() -> {
            cancellation.request("interrupted");
            try {
                finished.await(2, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "symbiont-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        previous = Sigint.take(this::press);
        return () -> {
            if (presses.get() < 2) Sigint.restore(previous);
            finished.countDown();
            Sigint.removeHook(hook);
        };
    }
}
