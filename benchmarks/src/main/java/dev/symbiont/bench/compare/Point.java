package dev.symbiont.bench.compare;

import java.util.Map;
import java.util.TreeMap;

/**
 * One measurement of {@code symbiont compare}: what a suite measured for one series (a family,
 * a kernel, an implementation) at one value of its x axis (a sequence length, a batch, a
 * context, E, k), on one backend. A point that could not be measured carries no values and a
 * note saying why (skipped for time, failed, not run on this backend).
 *
 * @param backend the device the point was measured on ("cpu", "cuda:0")
 * @param suite   what was measured, e.g. {@code train.seq}, {@code scan}, {@code roofline.peak}
 * @param series  the line it belongs to, e.g. {@code gpt}, {@code blelloch}, {@code gemm}
 * @param x       the point's place on the suite's x axis (0 when the suite has none)
 * @param values  the measured numbers by name ({@code ms}, {@code peak_mib}, {@code share.matmul}, …); non-finite ones are dropped
 * @param note    why there are no values, or null for a measured point
 */
public record Point(String backend, String suite, String series, double x, Map<String, Double> values, String note) {
    public Point {
        if (backend == null || suite == null || series == null) {
            throw new IllegalArgumentException("Point: backend, suite and series must be given, got " + backend + ", " + suite + ", " + series);
        }
        TreeMap<String, Double> finite = new TreeMap<>();               // NaN and ∞ are "not measured": JSON has no number for them
        if (values != null) values.forEach((k, v) -> { if (v != null && Double.isFinite(v)) finite.put(k, v); });
        values = java.util.Collections.unmodifiableMap(finite);
    }

    /** A measured point. */
    public static Point of(String backend, String suite, String series, double x, Map<String, Double> values) {
        return new Point(backend, suite, series, x, values, null);
    }

    /** A point that was not measured, and why. */
    public static Point missing(String backend, String suite, String series, double x, String why) {
        return new Point(backend, suite, series, x, Map.of(), why);
    }

    /** The value named {@code name}, or NaN when the point has none. */
    public double value(String name) {
        Double v = values.get(name);
        return v == null ? Double.NaN : v;
    }

    /** Whether the point holds measured values. */
    public boolean measured() { return note == null; }

    /** The identity a re-measurement replaces: backend, suite, series and x. */
    public String key() { return backend + "|" + suite + "|" + series + "|" + x; }
}
