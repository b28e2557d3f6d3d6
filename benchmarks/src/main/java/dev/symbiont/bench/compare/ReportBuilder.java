package dev.symbiont.bench.compare;

import java.util.List;

/** The report of some results: the machine, the seeds' tables with verdicts, then one section per suite. */
public final class ReportBuilder {
    private ReportBuilder() {}

    public static Report build(CompareResults results) {
        CompareResults r = results.snapshot();
        return new Report("Symbiont compare: the seeds' tables on this machine", List.of(MachineSection.build(r), SeedTablesSection.build(r),
                RooflineSection.build(r), TrainingSection.build(r), GenerationSection.build(r), AttentionSection.build(r), ScanSection.build(r),
                MoeSection.build(r), ImageSection.build(r), ProfileSection.build(r)));
    }
}
