package dev.symbiont.bench.compare;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * One row of a seed article's table, rebuilt: what the article says, the rule that turns a
 * measurement into a verdict, and the judge that applies the rule to one backend's results.
 *
 * @param table  the article's table (or section) the row comes from
 * @param aspect the row's subject
 * @param seed   what the article claims, in English
 * @param rule   how the verdict is decided, stated so a reader can re-check it
 * @param judge  the measured figure and verdict on one backend's results
 */
public record Claim(String table, String aspect, String seed, String rule, Function<Measured, Evidence> judge) {

    /** The verdict on a claim. */
    public enum Verdict {
        CONFIRMED("confirmed"),
        REFUTED("refuted"),
        NOT_MEASURABLE("not measurable on this hardware"),
        NOT_MEASURED("not measured in this run");

        private final String text;

        Verdict(String text) { this.text = text; }

        @Override
        public String toString() { return text; }
    }

    /** A measured figure and the verdict it gives. */
    public record Evidence(String measured, Verdict verdict) {
        static Evidence of(boolean holds, String measured) { return new Evidence(measured, holds ? Verdict.CONFIRMED : Verdict.REFUTED); }

        static Evidence notMeasurable(String why) { return new Evidence(why, Verdict.NOT_MEASURABLE); }

        static Evidence notMeasured(String what) { return new Evidence("no " + what + " in the results", Verdict.NOT_MEASURED); }
    }

    /** The evidence on {@code backend}: a rule that finds no data gives "not measured". */
    public Evidence judge(CompareResults results, String backend) {
        try {
            return judge.apply(new Measured(results, backend));
        } catch (Missing e) {
            return Evidence.notMeasured(e.getMessage());
        }
    }

    /** One backend's results as the rules read them; a lookup that finds nothing throws {@link Missing}. */
    public record Measured(CompareResults results, String backend) {
        /** The measured points of a series, by x; at least one. */
        List<Point> series(String suite, String series) {
            List<Point> pts = results.series(backend, suite, series);
            if (pts.isEmpty()) throw new Missing(suite + " " + series);
            return pts;
        }

        /** The point at the largest x. */
        Point last(String suite, String series) { return series(suite, series).getLast(); }

        /** The fit of a value over the series (its upper half when asked); at least two points. */
        ScalingFit fit(String suite, String series, String value, boolean upperHalf) {
            ScalingFit fit = Sweep.fit(series(suite, series), value, upperHalf);
            if (fit == null) throw new Missing("two sizes of " + suite + " " + series);
            return fit;
        }

        /** The largest x both series were measured at. */
        double commonLast(String suite, String a, String b) {
            List<Double> xs = series(suite, b).stream().map(Point::x).toList();
            return series(suite, a).stream().map(Point::x).filter(xs::contains).reduce(Double::max)
                    .orElseThrow(() -> new Missing(suite + " " + a + " and " + b + " at a common size"));
        }

        /** The point of a series at x. */
        Point at(String suite, String series, double x) {
            return series(suite, series).stream().filter(p -> p.x() == x).findFirst().orElseThrow(() -> new Missing(suite + " " + series + " at " + x));
        }

        boolean cpu() { return backend.startsWith("cpu"); }
    }

    /** No data for a rule. */
    static final class Missing extends RuntimeException {
        Missing(String what) { super(what, null, false, false); }
    }

    static String f(String format, Object... args) { return String.format(Locale.ROOT, format, args); }
}
