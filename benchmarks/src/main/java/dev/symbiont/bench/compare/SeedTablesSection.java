package dev.symbiont.bench.compare;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The seed articles' tables rebuilt with this machine's numbers: each row with what the article
 * says, the measured figure and verdict on every backend, and the rule that decided it. A count
 * of the verdicts opens the section.
 */
final class SeedTablesSection {
    private SeedTablesSection() {}

    static List<Claim> claims() { return Stream.concat(HardwareClaims.all().stream(), ModelClaims.all().stream()).toList(); }

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("seed-tables", "The seed articles' tables, measured");
        List<String> backends = r.backends();
        Map<String, List<Claim>> byTable = new LinkedHashMap<>();
        for (Claim c : claims()) byTable.computeIfAbsent(c.table(), t -> new ArrayList<>()).add(c);
        Map<Claim.Verdict, Integer> counts = new LinkedHashMap<>();
        List<String> header = new ArrayList<>(List.of("aspect", "the article says"));
        for (String backend : backends) { header.add(backend + ": measured"); header.add(backend + ": verdict"); }
        header.add("rule");
        Map<String, List<List<String>>> tables = new LinkedHashMap<>();
        for (Map.Entry<String, List<Claim>> t : byTable.entrySet()) {
            List<List<String>> rows = new ArrayList<>();
            for (Claim c : t.getValue()) {
                List<String> row = new ArrayList<>(List.of(c.aspect(), c.seed()));
                for (String backend : backends) {
                    Claim.Evidence e = c.judge(r, backend);
                    counts.merge(e.verdict(), 1, Integer::sum);
                    row.add(e.measured());
                    row.add("**" + e.verdict() + "**");
                }
                row.add(c.rule());
                rows.add(row);
            }
            tables.put(t.getKey(), rows);
        }
        StringBuilder summary = new StringBuilder("Verdicts over ").append(backends.size()).append(backends.size() == 1 ? " backend: " : " backends: ");
        counts.forEach((v, n) -> summary.append(n).append(' ').append(v).append("; "));
        b.text(summary.substring(0, summary.length() - 2) + ". A claim is **confirmed** when its rule holds on the measurements, **refuted** "
                + "when it does not, **not measurable on this hardware** when no measurement here can decide it (a GPU effect, a rating), "
                + "and **not measured in this run** when its suite was left out or skipped its sizes. The article's other tables (the decision "
                + "matrix, maturity, hardware trends, tools) are judgements, not measurements, and are not rebuilt.");
        tables.forEach((title, rows) -> b.text("**" + title + "**").table(header, rows));
        return b.build();
    }
}
