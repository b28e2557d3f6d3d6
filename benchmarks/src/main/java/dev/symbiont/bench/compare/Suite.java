package dev.symbiont.bench.compare;

import dev.symbiont.core.backend.Backend;

import java.util.List;

/**
 * One section's measurements: a suite plans them for the sizes and backend at hand, and the
 * run takes them one at a time, saving the results after each.
 */
public interface Suite {
    /** The name {@code --only} takes: roofline, training, images, generation, profile, scans, moe, attention. */
    String id();

    /** The measurements, in the order they run; each is one step of the progress bar. */
    List<Measurement> plan(Sizes sizes, Backend backend);

    /**
     * One measurement: its place (suite, series, x) names the point it records, or the missing
     * point recorded when it fails or is skipped.
     */
    record Measurement(String suite, String series, double x, String label, Body body) {
        /** The key of the point it records on {@code backend} ({@link Point#key()}). */
        public String key(String backend) { return Point.missing(backend, suite, series, x, "").key(); }
    }

    /** What a measurement does: its points, the first the one its place names. */
    @FunctionalInterface
    interface Body {
        List<Point> run(MeasureContext context);
    }
}
