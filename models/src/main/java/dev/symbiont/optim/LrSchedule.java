package dev.symbiont.optim;

/**
 * The learning rate for each optimizer step, counted from 0. Schedules are pure functions of
 * the step, so a resumed run gets the same lr from the step it saved and no scheduler state
 * has to be checkpointed. Apply one before each step:
 * <pre>
 *   schedule.applyTo(optimizer, step);
 *   optimizer.step();
 * </pre>
 */
@FunctionalInterface
public interface LrSchedule {
    /** The lr for step {@code step} (>= 0). */
    double lr(long step);

    /**
     * Sets every group's lr to {@link #lr(long)} (the GPT recipe: decay and no-decay groups
     * share one lr) and returns it.
     */
    default double applyTo(Optimizer optimizer, long step) {
        double lr = lr(step);
        optimizer.setLr(lr);
        return lr;
    }

    /** The same lr at every step. */
    static LrSchedule constant(double lr) {
        Optimizer.requireNonNegative("LrSchedule.constant", "lr", lr);
        return step -> lr;
    }

    /** Linear warm-up from 0 to {@code baseLr}, then cosine decay to {@code minLr}; see {@link WarmupCosine}. */
    static LrSchedule warmupCosine(double baseLr, double minLr, long warmupSteps, long totalSteps) {
        return new WarmupCosine(baseLr, minLr, warmupSteps, totalSteps);
    }

    /** {@code baseLr} times {@code gamma} every {@code stepSize} steps; see {@link StepDecay}. */
    static LrSchedule stepDecay(double baseLr, double gamma, long stepSize) {
        return new StepDecay(baseLr, gamma, stepSize);
    }
}
