package dev.symbiont.train;

import java.util.concurrent.atomic.AtomicReference;

/**
 * A request to stop training early, from any thread (a Ctrl-C handler, a UI, a test). The
 * {@link Trainer} checks it after every optimizer step and then stops as at the end of the run:
 * it saves a checkpoint, so the run can be resumed, and reports {@link Trainer.Result#cancelled()}.
 */
public final class Cancellation {
    private final AtomicReference<String> reason = new AtomicReference<>();

    /** Asks the run to stop after the step in flight; the first reason given is kept. */
    public void request(String why) { reason.compareAndSet(null, why); }

    public boolean requested() { return reason.get() != null; }

    /** Why the stop was requested, or null. */
    public String reason() { return reason.get(); }
}
