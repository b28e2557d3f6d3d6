package dev.symbiont.bench.compare;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * {@code symbiont compare}'s run: the suites' measurements on one backend, one at a time, the
 * results saved atomically to {@code results.json} after each (so an interrupted run keeps what
 * it measured), then the report written from them. A run replaces its backend's earlier points
 * in the directory and keeps other backends' (their columns stay in the report); with
 * {@code resume} it keeps its own too and measures only what is missing.
 */
public final class CompareRun {
    /** Every suite, in the order a run takes them. */
    public static final List<Suite> SUITES = List.of(new RooflineSuite(), new TrainingSuite(), new GenerationSuite(), new AttentionSuite(),
            new ScanSuite(), new MoeSuite(), new ImageSuite(), new ProfileSuite());

    /**
     * @param directory where results.json, report.md, report.html and charts/ go
     * @param sizes     what to measure
     * @param suites    the suites' ids to run (all when empty)
     * @param resume    keep this backend's earlier points and measure only the missing ones
     */
    public record Options(Path directory, Sizes sizes, List<String> suites, boolean resume) {
        public Options {
            List<String> known = SUITES.stream().map(Suite::id).toList();
            for (String s : suites) {
                if (!known.contains(s)) throw new IllegalArgumentException("unknown suite '" + s + "': the suites are " + String.join(", ", known));
            }
            suites = List.copyOf(suites);
        }

        boolean runs(Suite s) { return suites.isEmpty() || suites.contains(s.id()); }
    }

    private final Backend backend;
    private final Options options;
    private final CompareProgress progress;
    private final CompareResults results;
    private volatile boolean stopRequested;

    /** A run that continues the results already in the directory (none when it has no results.json). */
    public CompareRun(Backend backend, Options options, CompareProgress progress) throws IOException {
        this.backend = backend;
        this.options = options;
        this.progress = progress;
        this.results = ResultsJson.readOrEmpty(resultsFile(options.directory()));
    }

    public static Path resultsFile(Path directory) { return directory.resolve("results.json"); }

    /** The measurements this run will take, in order. */
    public List<Suite.Measurement> plan() {
        List<Suite.Measurement> plan = new ArrayList<>();
        for (Suite s : SUITES) if (options.runs(s)) plan.addAll(s.plan(options.sizes(), backend));
        String device = backend.device().toString();
        if (options.resume()) plan.removeIf(m -> results.has(m.key(device)));
        return plan;
    }

    /** Measures, saving after each point, then writes the report; returns the results of every backend. */
    public CompareResults run() throws IOException {
        String device = backend.device().toString();
        List<Suite.Measurement> plan = plan();
        if (!options.resume()) results.clear(device);
        RunInfo run = RunInfo.starting(backend, options.sizes().name());
        results.putRun(run);
        save();
        progress.planned(plan.size());
        long t0 = System.nanoTime();
        MeasureContext context = new MeasureContext(backend, options.sizes(), results);
        try (var scope = Backends.use(backend); var heap = HeapSizing.keepCommitted()) {
            for (Suite.Measurement m : plan) {
                if (stopRequested) break;
                progress.started(m.label());
                List<Point> points = measure(m, context, device);
                points.forEach(results::put);
                results.putRun(run.after((System.nanoTime() - t0) / 1e9, false));
                save();
                progress.finished(m.label(), outcome(points.getFirst()));
            }
        }
        results.putRun(run.after((System.nanoTime() - t0) / 1e9, !stopRequested));
        save();
        ReportWriter.write(results.snapshot(), options.directory());
        return results;
    }

    /**
     * Asks the run to stop after the measurement in flight: it then saves, writes the report of
     * what it measured and returns, its run marked incomplete. Any thread may call it (Ctrl-C does).
     */
    public void stop() { stopRequested = true; }

    /** Whether {@link #stop} was called. */
    public boolean stopped() { return stopRequested; }

    /** One measurement's points; a failure (an exception, running out of memory) becomes a noted missing point. */
    private static List<Point> measure(Suite.Measurement m, MeasureContext context, String device) {
        try {
            List<Point> points = m.body().run(context);
            if (points.isEmpty()) throw new IllegalStateException(m.label() + " measured nothing");
            return points;
        } catch (RuntimeException | OutOfMemoryError | StackOverflowError e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getClass().getSimpleName() + ": " + e.getMessage();
            return List.of(Point.missing(device, m.suite(), m.series(), m.x(), "failed: " + why));
        }
    }

    private static String outcome(Point p) {
        if (!p.measured()) return p.note();
        return p.values().entrySet().stream().limit(3).map(e -> e.getKey() + " " + Fmt.sig(e.getValue(), 3))
                .reduce((a, b) -> a + ", " + b).orElse("");
    }

    private void save() throws IOException { ResultsJson.write(results, resultsFile(options.directory())); }

    /** The suites' ids, comma-separated, as {@code --only} takes them. */
    public static List<String> parseSuites(String ids) {
        return ids == null ? List.of() : Arrays.stream(ids.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).filter(s -> !s.isEmpty()).toList();
    }
}
