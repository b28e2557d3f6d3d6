package dev.symbiont.train;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The step a {@link Trainer} hands its lr schedule, so that a run bounded by time ends annealed
 * (budgeted training, Li et al. 2020). The schedule is planned for {@code maxSteps}; a run with a
 * time limit stands at the further of where its steps and its clock put it:
 * <pre>
 *   p = max(step / maxSteps, p0 + (1 − p0) · (elapsed − w) / (limit − w))      p0 = startStep / maxSteps (0 unless resumed)
 *   schedule step = min(maxSteps, floor(p · maxSteps))
 * </pre>
 * so the schedule reaches its end when the time runs out, however many steps fit. {@code w} is
 * the run's first step: it compiles the kernels and touches fresh memory, so it says nothing of
 * the pace — counted, a JIT-cold first step of seconds put a short run's schedule ahead by an
 * amount that varied with the machine's load. The first step stands at its own step, and the
 * clock spreads the schedule over the time left after it. Without a time limit, or with one
 * the clock never catches up with, the schedule step is the step, so runs bounded by steps stay
 * bit-identical. The clock is a {@link LongSupplier} of nanoseconds ({@code System::nanoTime} in a
 * run, a fake one in tests).
 *
 * <p>A run resumed from a checkpoint that recorded its {@link TrainingTime} keeps its horizon: the
 * time limit is the whole run's, so this session has what the earlier ones left, and the schedule
 * goes on from where the clock had put it, p0 = the recorded fraction. A horizon the caller
 * changes rescales that fraction (p0 = fraction · old horizon / new horizon): the time already
 * trained is a smaller share of a longer horizon, and the schedule follows.
 */
final class ScheduleClock {
    private final long maxSteps;
    private final double startFraction;
    private final long limitNanos;
    private final LongSupplier nanoTime;
    private final long startNanos;
    private final long startStep;
    /** Training time of the run's earlier sessions, and its horizon (0: no time limit). */
    private final long beforeNanos, horizonNanos;
    /** Nanoseconds the run's first step took (0 until it has been looked up). */
    private long warmUpNanos;

    /** Starts the clock now; {@code limit} null means the run is bounded by steps alone. */
    ScheduleClock(long maxSteps, long startStep, Duration limit, LongSupplier nanoTime) {
        this(maxSteps, startStep, limit, null, nanoTime);
    }

    /**
     * Starts the clock now for a run that resumes at {@code startStep} with the training time its
     * checkpoint recorded ({@code resumed}; null when none was, and then {@code limit} is this
     * session's alone); {@code limit} is the whole run's time limit, null for none.
     */
    ScheduleClock(long maxSteps, long startStep, Duration limit, TrainingTime resumed, LongSupplier nanoTime) {
        this.maxSteps = maxSteps;
        this.startStep = startStep;
        this.horizonNanos = limit == null ? 0 : Math.max(1, limit.toNanos());
        this.beforeNanos = resumed == null ? 0 : resumed.elapsedNanos();
        boolean timed = resumed != null && resumed.horizonNanos() > 0 && horizonNanos > 0;
        this.startFraction = timed ? Math.min(1, resumed.scheduleFraction() * resumed.horizonNanos() / horizonNanos)
                                   : Math.min(1, (double) startStep / maxSteps);
        this.limitNanos = limit == null ? 0 : Math.max(1, horizonNanos - beforeNanos);
        this.nanoTime = nanoTime;
        this.startNanos = nanoTime.getAsLong();
    }

    /** What a checkpoint taken now records: the run's training time, its horizon and the clock's share of the schedule. */
    TrainingTime trainingTime() {
        return new TrainingTime(beforeNanos + elapsedNanos(), horizonNanos, limitNanos == 0 ? 0 : timeFraction());
    }

    /** Nanoseconds since the clock started. */
    long elapsedNanos() { return nanoTime.getAsLong() - startNanos; }

    /** Nanoseconds the time limit leaves, {@link Long#MAX_VALUE} without one. */
    long remainingNanos() { return limitNanos == 0 ? Long.MAX_VALUE : Math.max(0, limitNanos - elapsedNanos()); }

    /** Whether the run has used its time limit (never without one). */
    boolean timeUp() { return limitNanos > 0 && elapsedNanos() >= limitNanos; }

    /**
     * The step to look the lr up at before taking optimizer step {@code step} (counted from 0).
     * The run's first step is looked up at itself (or where a resumed run's schedule stood, if
     * further), and from then on the clock counts from there.
     */
    long scheduleStep(long step) {
        if (limitNanos == 0) return step;
        if (step == startStep) {
            warmUpNanos = elapsedNanos();
            return Math.max(step, Math.min(maxSteps, (long) Math.floor(startFraction * maxSteps)));
        }
        return Math.max(step, Math.min(maxSteps, (long) Math.floor(timeFraction() * maxSteps)));
    }

    /** Where the clock puts the schedule, in [p0, 1]: p0 plus the share of the paced time used of what was left. */
    private double timeFraction() {
        long pacedNanos = limitNanos - warmUpNanos;
        double timeShare = pacedNanos <= 0 ? 1 : Math.max(0, Math.min(1, (double) (elapsedNanos() - warmUpNanos) / pacedNanos));
        return startFraction + (1 - startFraction) * timeShare;
    }
}
