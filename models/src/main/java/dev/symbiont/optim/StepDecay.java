package dev.symbiont.optim;

/**
 * The lr multiplied by {@code gamma} every {@code stepSize} steps, like torch's StepLR:
 * {@code lr(s) = base · gamma^floor(s / stepSize)}.
 */
public record StepDecay(double baseLr, double gamma, long stepSize) implements LrSchedule {
    public StepDecay {
        Optimizer.requireNonNegative("StepDecay", "base lr", baseLr);
        if (!(gamma > 0 && gamma <= 1)) throw new IllegalArgumentException("StepDecay: gamma must be in (0, 1], got " + gamma);
        if (stepSize <= 0) throw new IllegalArgumentException("StepDecay: step size must be > 0, got " + stepSize);
    }

    @Override
    public double lr(long step) {
        if (step < 0) throw new IllegalArgumentException("StepDecay: step must be >= 0, got " + step);
        return baseLr * Math.pow(gamma, step / stepSize);
    }
}
