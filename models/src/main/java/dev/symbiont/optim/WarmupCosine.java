package dev.symbiont.optim;

/**
 * Linear warm-up then cosine decay, the schedule of GPT training recipes (Hugging Face's
 * {@code get_cosine_schedule_with_warmup} with a floor). With W warm-up and T total steps:
 * <pre>
 *   lr(s) = base · s / W                                        for s &lt; W
 *   lr(s) = min + (base − min) · (1 + cos(π · (s − W) / (T − W))) / 2   for W ≤ s &lt; T
 *   lr(s) = min                                                 for s ≥ T
 * </pre>
 * Step 0 has lr 0 (it still updates Adam's moments); the peak is reached at step W.
 */
public record WarmupCosine(double baseLr, double minLr, long warmupSteps, long totalSteps) implements LrSchedule {
    public WarmupCosine {
        Optimizer.requireNonNegative("WarmupCosine", "base lr", baseLr);
        Optimizer.requireNonNegative("WarmupCosine", "min lr", minLr);
        if (minLr > baseLr) throw new IllegalArgumentException("WarmupCosine: min lr " + minLr + " exceeds base lr " + baseLr);
        if (warmupSteps < 0 || totalSteps < warmupSteps) {
            throw new IllegalArgumentException("WarmupCosine: need 0 <= warm-up steps <= total steps, got "
                    + warmupSteps + " and " + totalSteps);
        }
    }

    @Override
    public double lr(long step) {
        if (step < 0) throw new IllegalArgumentException("WarmupCosine: step must be >= 0, got " + step);
        if (step >= totalSteps) return minLr;
        if (step < warmupSteps) return baseLr * step / warmupSteps;
        double progress = (double) (step - warmupSteps) / (totalSteps - warmupSteps);
        return minLr + (baseLr - minLr) * 0.5 * (1 + Math.cos(Math.PI * progress));
    }
}
