package dev.symbiont.bench.compare;

import java.util.ArrayList;
import java.util.List;

/** Where and how the numbers were measured: one row per backend run. */
final class MachineSection {
    private MachineSection() {}

    static Report.Section build(CompareResults r) {
        List<List<String>> rows = new ArrayList<>();
        for (RunInfo run : r.runs()) {
            rows.add(List.of(run.backend(), run.route(), run.cpu(), Integer.toString(run.cores()), run.maxHeapMiB() + " MiB", run.jvm(), run.os(),
                    run.sizes(), run.started(), Fmt.sig(run.wallSeconds() / 60, 3) + " min", run.complete() ? "yes" : "no (interrupted or running)"));
        }
        return new Report.SectionBuilder("machine", "Machine and runs")
                .text("Measured by `symbiont compare` (wall-clock medians after warm-up, one training step = forward, loss, backward and AdamW). "
                        + "Each backend that ran adds its column; `symbiont compare --backend <device>` adds another, "
                        + "`symbiont compare --report-only <dir>` rebuilds this report from results.json.")
                .table(List.of("backend", "route", "CPU", "cores", "JVM heap", "JVM", "OS", "sizes", "started", "wall time", "complete"), rows)
                .build();
    }
}
