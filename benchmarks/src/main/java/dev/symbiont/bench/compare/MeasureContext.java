package dev.symbiont.bench.compare;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.memory.MemoryMeasure;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a measurement runs with: the backend (already the current one), the sizes, the results
 * so far (a measurement may skip a size that the last one says would take too long), and which
 * models the JIT has already seen.
 */
public record MeasureContext(Backend backend, Sizes sizes, CompareResults results, Set<String> warmed) {
    /** The most the first work of a kind warms, in multiples of {@code warmSeconds}. */
    static final int FIRST_WARM = 12;

    /** A context for one run: nothing warmed yet. */
    public MeasureContext(Backend backend, Sizes sizes, CompareResults results) { this(backend, sizes, results, new HashSet<>()); }

    /** The backend's device, the key of this run's points. */
    public String device() { return backend.device().toString(); }

    /** A measured point of this run. */
    public Point point(String suite, String series, double x, Map<String, Double> values) {
        return Point.of(device(), suite, series, x, values);
    }

    /** A point this run could not measure, and why. */
    public Point missing(String suite, String series, double x, String why) {
        return Point.missing(device(), suite, series, x, why);
    }

    /** The median seconds of one call of {@code work}, with this run's warm-up, repetitions and least timed seconds. */
    public double seconds(Runnable work) { return Timing.medianSeconds(backend, sizes.warmups(), sizes.reps(), sizes.timedSeconds(), work); }

    /**
     * As {@link #seconds}, for a kernel of a few milliseconds a call: the first kernel of its
     * {@code kind} in this run warms as a step does ({@link #stepSeconds}), and every one runs
     * for the sizes' {@code warmSeconds} more before it is timed — a Vector-API kernel runs
     * interpreted, a hundred times slower, until C2 has compiled it.
     */
    public double kernelSeconds(String kind, Runnable work) {
        warmOnce(kind, work);
        warmFor(sizes.warmSeconds(), work);
        return seconds(work);
    }

    /**
     * The median seconds of one training step, after the first step of its kind ({@code kind}: a
     * family, shared by the suites that step it) in this run has warmed until its time settled:
     * the JIT compiles a model's kernels over its first seconds, which would otherwise inflate
     * the smallest size of every sweep. Every later size runs for the sizes' {@code warmSeconds}
     * before it is timed too: a new length sends the kernels down loop bounds C2 has not seen, and
     * a few untimed steps left sizes in the middle of a sweep timed during its recompilation.
     */
    public double stepSeconds(String kind, Runnable step) {
        if (warmed.contains(kind)) warmFor(sizes.warmSeconds(), step);
        warmOnce(kind, step);
        return seconds(step);
    }

    /**
     * The first work of a kind runs until its time per call stops falling — the median of its
     * last five calls within 10% of the five before — after at least {@code warmSeconds} and at
     * most {@link #FIRST_WARM} times that: on a loaded machine C2 can take many seconds to compile
     * a model's kernels, and a fixed warm-up either wastes time or measures the interpreter.
     */
    private void warmOnce(String kind, Runnable work) {
        if (!warmed.add(kind)) return;
        long start = System.nanoTime(), least = (long) (sizes.warmSeconds() * 1e9), most = (long) (FIRST_WARM * sizes.warmSeconds() * 1e9);
        List<Double> times = new ArrayList<>();
        while (true) {
            long t0 = System.nanoTime();
            work.run();
            backend.synchronize();
            long now = System.nanoTime();
            times.add((now - t0) / 1e9);
            if (now - start >= most || (now - start >= least && settled(times))) return;
        }
    }

    /** Whether the median of the last five times is within 10% of the median of the five before them. */
    static boolean settled(List<Double> times) {
        int n = times.size();
        if (n < 10) return false;
        double last = Timing.median(times.subList(n - 5, n).stream().mapToDouble(Double::doubleValue).toArray());
        double before = Timing.median(times.subList(n - 10, n - 5).stream().mapToDouble(Double::doubleValue).toArray());
        return last >= 0.9 * before;
    }

    private void warmFor(double seconds, Runnable work) {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < until) {
            work.run();
            backend.synchronize();
        }
    }

    /**
     * The peak bytes one call of {@code step} allocates above what was live before it: exactly
     * (a full GC before each allocation that could raise the peak: the live set, as PyTorch's allocator reports it) when the
     * sizes ask for it, else with not-yet-collected garbage included.
     */
    public long peakBytes(Runnable step) { return MemoryMeasure.peakAbove(backend, sizes.exactMemory(), step); }

    /**
     * Why the next size of a series should be skipped, or null to measure it: the last measured
     * point's {@code ms} grown by (x / last x)^{@code exponent} would pass the step cap.
     */
    public String tooSlow(String suite, String series, double x, double exponent) {
        List<Point> done = results.series(device(), suite, series);
        if (done.isEmpty()) return null;
        Point last = done.getLast();
        double predicted = last.value("ms") / 1e3 * Math.pow(x / last.x(), exponent);
        if (!(predicted > sizes.maxStepSeconds())) return null;
        return String.format(java.util.Locale.ROOT, "skipped: one call would take about %.1f s (from %.2f s at %s), over the %.0f s cap",
                predicted, last.value("ms") / 1e3, Fmt.num(last.x()), sizes.maxStepSeconds());
    }

    static double mib(long bytes) { return bytes / 1048576.0; }
}
