package dev.symbiont.train;

/**
 * A request to stop training early, from any thread (a Ctrl-C handler, a UI, a test). The
 * {@link Trainer} checks it after every optimizer step and then stops as at the end of the run:
 * it evaluates, saves a checkpoint, so the run can be resumed, and reports
 * {@link Trainer.Result#cancelled()}. A request to stop {@linkplain #requestNow now} also skips
 * that evaluation (and ends one in progress after its current batch), so the checkpoint is saved
 * as soon as the step in flight is done.
 */
public final class Cancellation {
    private String reason;
    private boolean now;
    /** The last step the trainer finished, -1 before it starts. */
    private long done = -1;

    /**
     * Asks the run to stop after the step in flight; the first reason given is kept. Returns the
     * step the run stops after (counted from 1), or 0 when the trainer has not started yet (it then
     * stops after its first step).
     */
    public synchronized long request(String why) {
        if (reason == null) reason = why;
        return done < 0 ? 0 : done + 1;
    }

    /** As {@link #request}, and the run skips its final evaluation to save at once. */
    public synchronized long requestNow(String why) {
        now = true;
        return request(why);
    }

    public synchronized boolean requested() { return reason != null; }

    /** Whether the stop was asked for {@linkplain #requestNow now}. */
    public synchronized boolean now() { return now; }

    /** Why the stop was requested, or null. */
    public synchronized String reason() { return reason; }

    /**
     * The trainer finished {@code step} (or, at its start, the step it resumes from); returns
     * whether to stop here. Atomic with {@link #request}, so the step a request names is the one
     * the run stops after.
     */
    synchronized boolean finished(long step) {
        done = step;
        return reason != null;
    }
}
