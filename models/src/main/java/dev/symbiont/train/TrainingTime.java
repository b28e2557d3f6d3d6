package dev.symbiont.train;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The time a run has trained and the horizon its lr schedule was planned over, as its checkpoint
 * records them (metadata {@code time.elapsed_ns}, {@code time.horizon_ns},
 * {@code time.schedule_fraction}), so that a resumed run continues the same schedule: its time
 * limit is what the horizon leaves, and the schedule goes on from where the clock had put it
 * (the trainer's schedule clock).
 *
 * @param elapsedNanos     training time before the checkpoint, over every session of the run
 * @param horizonNanos     the run's time limit, the horizon of its schedule; 0 when it had none
 * @param scheduleFraction where the clock had put the schedule, in [0, 1] (0 without a time limit)
 */
public record TrainingTime(long elapsedNanos, long horizonNanos, double scheduleFraction) {
    static final String ELAPSED = "time.elapsed_ns", HORIZON = "time.horizon_ns", FRACTION = "time.schedule_fraction";

    public TrainingTime {
        if (elapsedNanos < 0 || horizonNanos < 0 || !(scheduleFraction >= 0 && scheduleFraction <= 1)) {
            throw new IllegalArgumentException("TrainingTime: need elapsed and horizon >= 0 and a schedule fraction in [0, 1], got "
                    + elapsedNanos + ", " + horizonNanos + ", " + scheduleFraction);
        }
    }

    /** The time limit, or null for a run without one. */
    public Duration horizon() { return horizonNanos == 0 ? null : Duration.ofNanos(horizonNanos); }

    /** Whether the run has used all of its time limit (never without one). */
    public boolean used() { return horizonNanos > 0 && elapsedNanos >= horizonNanos; }

    /**
     * The time a checkpoint's metadata records, or null for one written before it was recorded;
     * a value that is not a number, or out of range, is an error naming its key.
     */
    public static TrainingTime of(Map<String, String> metadata) {
        if (!metadata.containsKey(ELAPSED)) return null;
        for (String key : new String[] {HORIZON, FRACTION}) {
            if (!metadata.containsKey(key)) throw new IllegalArgumentException("the checkpoint records " + ELAPSED + " but not " + key);
        }
        long elapsed, horizon;
        double fraction;
        try {
            elapsed = Long.parseLong(metadata.get(ELAPSED));
            horizon = Long.parseLong(metadata.get(HORIZON));
            fraction = Double.parseDouble(metadata.get(FRACTION));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("the checkpoint's " + ELAPSED + ", " + HORIZON + " and " + FRACTION
                    + " must be numbers, got " + metadata.get(ELAPSED) + ", " + metadata.get(HORIZON) + ", " + metadata.get(FRACTION), e);
        }
        try {
            return new TrainingTime(elapsed, horizon, fraction);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the checkpoint's training time is out of range: " + e.getMessage(), e);
        }
    }

    Map<String, String> toMetadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(ELAPSED, Long.toString(elapsedNanos));
        m.put(HORIZON, Long.toString(horizonNanos));
        m.put(FRACTION, Double.toString(scheduleFraction));
        return m;
    }
}
