package dev.symbiont.cli;

import dev.symbiont.train.TrainingTime;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.Map;

/**
 * The time limit of a run that {@code --resume} continues. The limit is the whole run's, and the
 * horizon its lr schedule follows: a resumed run keeps the one its checkpoint recorded and trains
 * for what it leaves. A {@code --minutes} given again moves the horizon, and the run says so in
 * one line, because the learning rate follows it.
 */
final class RunHorizon {
    private RunHorizon() {}

    /**
     * The minutes to train {@code dir}'s run for, in all: {@code minutes} for a new run, for one
     * whose checkpoint recorded no time, and when {@code explicit}; the recorded horizon otherwise.
     */
    static double minutes(Path dir, Map<String, String> checkpoint, double minutes, boolean explicit) {
        TrainingTime time;
        try {
            time = checkpoint == null ? null : TrainingTime.of(checkpoint);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(RunDirectory.checkpoint(dir) + ": " + e.getMessage(), e);
        }
        if (time == null || time.horizon() == null) return minutes;
        double saved = time.horizonNanos() / 60e9, trained = time.elapsedNanos() / 60e9;
        if (!explicit) {
            if (time.used()) {
                throw new IllegalArgumentException("the run in " + dir + " has trained its " + plain(saved) + " minutes; to train on, "
                        + "give it a longer horizon with --minutes (the learning rate follows the horizon)");
            }
            return saved;
        }
        if (minutes <= trained) {
            throw new IllegalArgumentException("--minutes " + plain(minutes) + " on resume is not more than the "
                    + String.format(java.util.Locale.ROOT, "%.2f", trained) + " minutes the run in " + dir + " has trained; it is the whole run's limit");
        }
        if (minutes != saved) {
            System.out.println("train: --minutes " + plain(minutes) + " on resume: the schedule's horizon moves from " + plain(saved)
                    + " to " + plain(minutes) + " minutes; the learning rate follows it");
        }
        return minutes;
    }

    /** 4.5 rather than 4.500000000000001 or 4.50. */
    static String plain(double minutes) {
        return new BigDecimal(minutes).setScale(3, java.math.RoundingMode.HALF_EVEN).stripTrailingZeros().toPlainString();
    }
}
