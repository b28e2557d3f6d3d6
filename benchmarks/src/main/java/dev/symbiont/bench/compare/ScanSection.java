package dev.symbiont.bench.compare;

import java.util.List;

/** The serial-against-parallel-scan table's numbers: time, rounds and combines of each scan kernel against L. */
final class ScanSection {
    private ScanSection() {}

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("scans", "Scans: serial against parallel");
        b.text("The linear recurrence h_t = a_t·h_{t−1} + x_t, batch " + ScanSuite.BATCH + " × the channels, forward. Rounds are the dependent "
                + "steps (depth: what a machine with unlimited cores still has to do in order); combines are applications of "
                + "(a₁, b₁)∘(a₀, b₀) = (a₁a₀, a₁b₀ + b₁) per column (work). Hillis–Steele and Blelloch count their own; the sequential kernel "
                + "is L rounds and L − 1 combines, the chunked one 2⌈L/C⌉ + C rounds and about 2L combines over C = 2·cores chunks. "
                + "\"op\" is `Scans.linearScan` as the models call it, on the backend measured.");
        Sweep.add(b, r, ScanSuite.SUITE, "len", "L", List.of(new Sweep.Metric("ms", "ms", true, true), new Sweep.Metric("rounds", "rounds", true, true),
                new Sweep.Metric("combines", "combines per column", true, true), new Sweep.Metric("ns_per_combine", "ns per combine", false, false)),
                Titles::of);
        return b.build();
    }
}
