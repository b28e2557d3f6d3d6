package dev.symbiont.bench;

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
}
