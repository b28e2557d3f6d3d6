package dev.symbiont.cli;

import dev.symbiont.bench.compare.Charts;
import dev.symbiont.bench.compare.CompareResults;
import dev.symbiont.bench.compare.CompareRun;
import dev.symbiont.bench.compare.LmFamily;
import dev.symbiont.bench.compare.Report;
import dev.symbiont.bench.compare.ReportWriter;
import dev.symbiont.bench.compare.ResultsJson;
import dev.symbiont.bench.compare.RunInfo;
import dev.symbiont.bench.compare.Sizes;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code symbiont compare}: the seed articles' tables measured on this machine — roofline,
 * training and generation scaling per family, attention, scans, MoE, images and the profile —
 * written as results.json (after every measurement, so an interrupted run keeps what it
 * measured), report.md, a self-contained report.html and charts/*.png. Ctrl-C stops after the
 * measurement in flight and writes the report of what was measured ({@link CompareStop}).
 */
@Command(name = "compare", sortOptions = false,
        description = {"Measure the architecture families on this machine and write the seed articles' tables as a report with charts.",
                "Writes DIR/results.json after every measurement, then DIR/report.md, DIR/report.html (self-contained) and DIR/charts/*.png.",
                "A run replaces its backend's earlier results in DIR and keeps other backends' (their columns stay in the report)."})
final class CompareCommand implements Callable<Integer> {
    @Parameters(index = "0", arity = "0..1", paramLabel = "DIR", defaultValue = "runs/compare",
            description = "Directory of the results and the report (default: ${DEFAULT-VALUE}).")
    Path directory;

    @Option(names = "--backend", paramLabel = "<device>",
            description = "Backend name or device to measure, e.g. cpu, cuda, cuda:1 (default: the fastest available).")
    String backendName;

    @Option(names = "--quick", description = "Smaller sizes: about 5 minutes on 2 cores (the full run: about 10).")
    boolean quick;

    @Option(names = "--only", paramLabel = "<suite,...>", split = ",",
            description = "Run only these suites: roofline, training, generation, attention, scans, moe, images, profile.")
    List<String> only = List.of();

    @Option(names = "--families", paramLabel = "<family,...>",
            description = "Language-model families to measure: gpt, mamba, mamba2, moe-active, moe-total (default: all).")
    String families;

    @Option(names = "--resume", description = "Keep this backend's results in DIR and measure only what they lack.")
    boolean resume;

    @Option(names = "--report-only", description = "Measure nothing: rebuild the report from DIR/results.json.")
    boolean reportOnly;

    @Override
    public Integer call() throws IOException {
        if (reportOnly) return reportOnly();
        Sizes sizes = quick ? Sizes.quick() : Sizes.full();
        if (families != null) sizes = sizes.withFamilies(LmFamily.parse(families));
        Backend backend = backendName == null ? Backends.defaultBackend() : Backends.get(backendName);
        CompareRun.Options options = new CompareRun.Options(directory, sizes, only.stream().map(s -> s.trim().toLowerCase(Locale.ROOT)).toList(), resume);
        Charts.prepare();
        try (CompareProgressBar progress = CompareProgressBar.create(System.out)) {
            CompareRun run = new CompareRun(backend, options, progress);
            RunInfo here = RunInfo.starting(backend, sizes.name());
            System.out.printf(Locale.ROOT, "compare: %d measurements on %s (%s, %d cores), %s sizes (about %s); results in %s%n", run.plan().size(),
                    here.backend(), here.cpu(), here.cores(), sizes.name(), quick ? "5 minutes" : "10 minutes", directory.toAbsolutePath());
            long t0 = System.nanoTime();
            CompareResults results;
            try (CompareStop stop = new CompareStop(run)) {
                results = run.run();
            }
            progress.close();
            System.out.printf(Locale.ROOT, "compare: %s in %.1f min: %d points; wrote %s%n", run.stopped() ? "interrupted" : "done",
                    (System.nanoTime() - t0) / 6e10, results.points().size(), written(directory));
            if (run.stopped()) return CompareStop.INTERRUPTED;
        }
        return 0;
    }

    private int reportOnly() throws IOException {
        Path file = CompareRun.resultsFile(directory);
        if (!Files.exists(file)) throw new IllegalArgumentException("no results in " + file + ": run symbiont compare first");
        Report report = ReportWriter.write(ResultsJson.read(file), directory);
        System.out.printf(Locale.ROOT, "compare: rebuilt the report (%d sections, %d charts); wrote %s%n", report.sections().size(),
                report.figures().size(), written(directory));
        return 0;
    }

    private static String written(Path directory) {
        Path d = directory.toAbsolutePath();
        return String.join(", ", d.resolve("report.md").toString(), d.resolve("report.html").toString(), d.resolve("results.json").toString(),
                d.resolve("charts") + "/");
    }
}
