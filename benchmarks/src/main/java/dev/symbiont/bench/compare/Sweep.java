package dev.symbiont.bench.compare;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * A suite's points as a sweep: one line per series (and backend) of each metric against x, drawn
 * log–log, a table of the fitted scaling exponents, a table of the values, and the points that
 * were skipped or failed with their reasons. Most sections are one or two sweeps.
 */
final class Sweep {
    /** One measured value of the sweep: its key in the points, its label, whether to chart it and fit its exponent. */
    record Metric(String key, String label, boolean chart, boolean fit) {}

    private Sweep() {}

    /**
     * Adds the sweep of {@code suite} to {@code b}: a figure per charted metric, the fits, the
     * values (rows: series, x, backend) and the missing points. {@code title} names a series.
     */
    static void add(Report.SectionBuilder b, CompareResults r, String suite, String name, String xLabel, List<Metric> metrics,
                    Function<String, String> title) {
        for (Metric m : metrics) {
            if (m.chart()) b.figure(name + "-" + m.key(), m.label() + " against " + xLabel + " (log–log)", Charts.lines(m.label() + " against " + xLabel,
                    xLabel, m.label(), lines(r, suite, m.key(), title)));
        }
        List<Metric> fitted = metrics.stream().filter(Metric::fit).toList();
        if (!fitted.isEmpty()) {
            List<String> header = new ArrayList<>(List.of("series", "backend"));
            for (Metric m : fitted) { header.add(m.label() + ": exponent"); header.add("upper half"); }
            List<List<String>> rows = new ArrayList<>();
            for (String backend : r.backends()) {
                for (String series : r.seriesNames(backend, suite)) {
                    List<Point> pts = r.series(backend, suite, series);
                    if (pts.size() < 2) continue;
                    List<String> row = new ArrayList<>(List.of(title.apply(series), backend));
                    for (Metric m : fitted) { row.add(exponent(pts, m.key(), false)); row.add(exponent(pts, m.key(), true)); }
                    rows.add(row);
                }
            }
            if (!rows.isEmpty()) {
                b.text("Scaling exponents k of y ≈ c·x^k, fitted by least squares on log–log axes over all sizes and over the upper half "
                        + "of the sizes (where an asymptotic claim shows); R² of the fit in brackets.");
                b.table(header, rows);
            }
        }
        List<String> header = new ArrayList<>(List.of("series", xLabel, "backend"));
        for (Metric m : metrics) header.add(m.label());
        List<List<String>> rows = new ArrayList<>();
        for (String backend : r.backends()) {
            for (String series : r.seriesNames(backend, suite)) {
                for (Point p : r.series(backend, suite, series)) {
                    List<String> row = new ArrayList<>(List.of(title.apply(series), Fmt.num(p.x()), backend));
                    for (Metric m : metrics) row.add(Fmt.sig(p.value(m.key()), 3));
                    rows.add(row);
                }
            }
        }
        b.table(header, rows);
        missing(b, r, suite, title);
    }

    /** The points of {@code suite} that were not measured, as a list of reasons. */
    static void missing(Report.SectionBuilder b, CompareResults r, String suite, Function<String, String> title) {
        List<List<String>> rows = new ArrayList<>();
        for (String backend : r.backends()) {
            for (Point p : r.missing(backend, suite)) rows.add(List.of(title.apply(p.series()), Fmt.num(p.x()), backend, p.note()));
        }
        if (!rows.isEmpty()) b.text("Not measured:").table(List.of("series", "x", "backend", "why"), rows);
    }

    /** One line per series and backend (the backend named only when there are several). */
    static List<Charts.Line> lines(CompareResults r, String suite, String value, Function<String, String> title) {
        List<Charts.Line> out = new ArrayList<>();
        boolean several = r.backends().size() > 1;
        for (String backend : r.backends()) {
            for (String series : r.seriesNames(backend, suite)) {
                List<Point> pts = r.series(backend, suite, series);
                out.add(new Charts.Line(title.apply(series) + (several ? " (" + backend + ")" : ""), pts.stream().mapToDouble(Point::x).toArray(),
                        pts.stream().mapToDouble(p -> p.value(value)).toArray()));
            }
        }
        return out;
    }

    /** "1.93 (0.99)": the exponent and R², or "–" when fewer than two points can be fitted. */
    static String exponent(List<Point> pts, String value, boolean upperHalf) {
        ScalingFit fit = fit(pts, value, upperHalf);
        return fit == null ? "–" : Fmt.exp(fit.exponent()) + " (" + Fmt.exp(fit.r2()) + ")";
    }

    /** The fit of a value over the points (or their upper half), or null when it cannot be fitted. */
    static ScalingFit fit(List<Point> pts, String value, boolean upperHalf) {
        List<Point> usable = pts.stream().filter(p -> p.value(value) > 0).toList();
        if (usable.size() < 2) return null;
        try {
            return upperHalf ? ScalingFit.ofUpperHalf(usable, value) : ScalingFit.of(usable, value);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
