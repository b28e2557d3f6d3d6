package dev.symbiont.bench;

import java.util.Arrays;
import java.util.function.DoubleSupplier;

/** The timing of the profile harnesses: the fastest of three calls, so one pause does not count. */
final class BestOfThree {
    private BestOfThree() {}

    /** Milliseconds of the fastest of three runs of {@code run}. */
    static double millis(Runnable run) {
        double best = Double.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            run.run();
            best = Math.min(best, (System.nanoTime() - t0) / 1e6);
        }
        return best;
    }

    /**
     * Two timings taken alternately, {@code warmups} unrecorded rounds first, then {@code rounds}
     * recorded: [first's rounds, second's rounds], ms, as each supplier measures them.
     */
    static double[][] alternate(int warmups, int rounds, DoubleSupplier first, DoubleSupplier second) {
        double[][] out = new double[2][rounds];
        for (int r = -warmups; r < rounds; r++) {
            double a = first.getAsDouble(), b = second.getAsDouble();
            if (r >= 0) {
                out[0][r] = a;
                out[1][r] = b;
            }
        }
        return out;
    }

    /** The median of {@code v} (the upper one of an even count). */
    static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
