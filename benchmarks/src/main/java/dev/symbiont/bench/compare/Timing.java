package dev.symbiont.bench.compare;

import dev.symbiont.core.backend.Backend;

import java.util.Arrays;

/**
 * Wall-clock timing with warm-up and medians, the way {@code compare} measures everything (JMH
 * forks and iterations would not fit its time budget): a few calls to warm the JIT and the
 * caches, then the median of the timed calls, each ended by the backend's synchronize so that
 * an asynchronous device is timed to the end of its work.
 */
public final class Timing {
    /** The most timed calls of one measurement, however fast the work. */
    public static final int MAX_CALLS = 101;

    private Timing() {}

    /** The median seconds of {@code reps} calls of {@code work} after {@code warmups} untimed ones. */
    public static double medianSeconds(Backend backend, int warmups, int reps, Runnable work) {
        return medianSeconds(backend, warmups, reps, 0, work);
    }

    /**
     * The median seconds of at least {@code reps} calls of {@code work} after {@code warmups}
     * untimed ones, timing more calls (up to {@link #MAX_CALLS}) until they took {@code minSeconds}
     * together: a millisecond kernel gets a median of many calls, a step of seconds its few.
     */
    public static double medianSeconds(Backend backend, int warmups, int reps, double minSeconds, Runnable work) {
        if (reps < 1) throw new IllegalArgumentException("Timing.medianSeconds: reps must be ≥ 1, got " + reps);
        for (int i = 0; i < warmups; i++) {
            work.run();
            backend.synchronize();
        }
        double[] s = new double[MAX_CALLS];
        double total = 0;
        int n = 0;
        while (n < MAX_CALLS && (n < reps || total < minSeconds)) {
            long t0 = System.nanoTime();
            work.run();
            backend.synchronize();
            s[n] = (System.nanoTime() - t0) / 1e9;
            total += s[n++];
        }
        return median(java.util.Arrays.copyOf(s, n));
    }

    /** The median of {@code values} (the mean of the middle two for an even count). */
    public static double median(double[] values) {
        if (values.length == 0) throw new IllegalArgumentException("Timing.median: no values");
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }
}
