package dev.symbiont.bench.compare;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything {@code symbiont compare} has measured, on every backend it ran on: one
 * {@link RunInfo} per backend and the points, a re-measured point replacing the old one. Runs
 * on several backends write into the same results (the report gets a column per backend). The
 * methods are synchronized: a run records from its thread while an interrupt writes the report
 * from another.
 */
public final class CompareResults {
    /** The format of results.json; a file of another version is refused rather than misread. */
    public static final int FORMAT = 1;

    private final Map<String, RunInfo> runs = new LinkedHashMap<>();
    private final Map<String, Point> points = new LinkedHashMap<>();

    public CompareResults() {}

    public CompareResults(List<RunInfo> runs, List<Point> points) {
        runs.forEach(this::putRun);
        points.forEach(this::put);
    }

    /** Adds or replaces the run of {@code run.backend()}. */
    public synchronized void putRun(RunInfo run) { runs.put(run.backend(), run); }

    /** Adds a point, replacing one with the same {@link Point#key()}. */
    public synchronized void put(Point p) { points.put(p.key(), p); }

    /** Forgets every point of {@code backend}: a fresh run on it starts from nothing. */
    public synchronized void clear(String backend) {
        points.values().removeIf(p -> p.backend().equals(backend));
        runs.remove(backend);
    }

    public synchronized List<RunInfo> runs() { return List.copyOf(runs.values()); }

    public synchronized List<Point> points() { return List.copyOf(points.values()); }

    /** The backends measured, in the order their runs were added. */
    public synchronized List<String> backends() { return List.copyOf(runs.keySet()); }

    /** Whether a point with this key was already measured (or noted). */
    public synchronized boolean has(String key) { return points.containsKey(key); }

    /** The measured points of {@code suite} on {@code backend}, by series then x. */
    public synchronized List<Point> of(String backend, String suite) {
        List<Point> out = new ArrayList<>();
        for (Point p : points.values()) if (p.backend().equals(backend) && p.suite().equals(suite) && p.measured()) out.add(p);
        out.sort(Comparator.comparing(Point::series).thenComparingDouble(Point::x));
        return out;
    }

    /** The measured points of one series, by x. */
    public synchronized List<Point> series(String backend, String suite, String series) {
        return of(backend, suite).stream().filter(p -> p.series().equals(series)).toList();
    }

    /** The series names of a suite on a backend, in first-measured order. */
    public synchronized List<String> seriesNames(String backend, String suite) {
        List<String> out = new ArrayList<>();
        for (Point p : points.values()) {
            if (p.backend().equals(backend) && p.suite().equals(suite) && p.measured() && !out.contains(p.series())) out.add(p.series());
        }
        return out;
    }

    /** The points of a suite on a backend that were not measured, with their notes. */
    public synchronized List<Point> missing(String backend, String suite) {
        return points.values().stream().filter(p -> p.backend().equals(backend) && p.suite().equals(suite) && !p.measured()).toList();
    }

    /** A copy, for writing while the original keeps growing. */
    public synchronized CompareResults snapshot() { return new CompareResults(runs(), points()); }

    @Override
    public synchronized boolean equals(Object o) {
        return o instanceof CompareResults r && runs().equals(r.runs()) && points().equals(r.points());
    }

    @Override
    public synchronized int hashCode() { return Objects.hash(runs.values(), points.values()); }
}
