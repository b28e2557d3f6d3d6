package dev.symbiont.bench.compare;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReportTest {
    private static final Report REPORT = ReportBuilder.build(SyntheticResults.of("cpu"));

    private static Report.Section section(Report report, String id) {
        return report.sections().stream().filter(s -> s.id().equals(id)).findFirst().orElseThrow(() -> new AssertionError("no section " + id));
    }

    private static List<Report.Table> tables(Report.Section s) {
        return s.blocks().stream().filter(b -> b instanceof Report.Table).map(b -> (Report.Table) b).toList();
    }

    @Test
    void should_have_every_section_with_its_charts() {
        assertEquals(List.of("machine", "seed-tables", "roofline", "training", "generation", "attention", "scans", "moe", "images", "profile"),
                REPORT.sections().stream().map(Report.Section::id).toList());
        Map<String, Long> figures = REPORT.figures().stream().collect(Collectors.groupingBy(f -> f.name().substring(0, f.name().indexOf('-')),
                Collectors.counting()));
        assertEquals(Map.of("roofline", 1L, "training", 3L, "generation", 2L, "attention", 2L, "scans", 3L, "moe", 4L, "images", 2L, "profile", 1L),
                figures);
    }

    @Test
    void should_rebuild_one_row_per_seed_claim_with_a_measured_figure_and_verdict_per_backend() {
        Report twoBackends = ReportBuilder.build(SyntheticResults.of("cpu", "cuda:0"));
        List<Report.Table> seed = tables(section(twoBackends, "seed-tables"));
        assertEquals(SeedTablesSection.claims().size(), seed.stream().mapToInt(t -> t.rows().size()).sum());
        Report.Table first = seed.getFirst();
        assertEquals(List.of("aspect", "the article says", "cpu: measured", "cpu: verdict", "cuda:0: measured", "cuda:0: verdict", "rule"), first.header());
    }

    @Test
    void should_judge_the_synthetic_scaling_as_the_formulas_say() {
        Map<String, Claim.Verdict> verdicts = SeedTablesSection.claims().stream()
                .collect(Collectors.toMap(c -> c.table().substring(0, 4) + " " + c.aspect(), c -> c.judge(SyntheticResults.of("cpu"), "cpu").verdict()));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§4.1 Linear complexity (Mamba-1)"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§4.1 Quadratic complexity (Transformer)"), "L + L²/1024 is quadratic above 1024");
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§3.2 Materialised attention"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§3.2 FlashAttention memory"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§4.1 Constant memory"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§4.2 Time complexity (depth)"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§4.2 Work (Hillis–Steele)"));
        assertEquals(Claim.Verdict.REFUTED, verdicts.get("§4.2 Work (Blelloch)"), "3L − 2 combines is work-efficient");
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§4.2 Practical speed on a CPU"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§5.3 Active parameters"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§5.3 Compute"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§2.2 Memory access"), "a stream 12× the gather");
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§4.2 Memory access"), "tree scans cost more per combine");
        assertEquals(Claim.Verdict.NOT_MEASURABLE, verdicts.get("§2.2 Control flow"));
        assertEquals(Claim.Verdict.NOT_MEASURED, verdicts.get("§6.1 EfficientNet"));
        assertEquals(Claim.Verdict.CONFIRMED, verdicts.get("§3.1 Head level"), "8 heads at 11.6 ms against 1 at 10.2: 1.14×");
    }

    @Test
    void should_refute_independent_heads_when_more_heads_of_the_same_width_take_far_longer() {
        CompareResults r = new CompareResults();
        for (int heads : AttentionSuite.HEAD_COUNTS) {
            r.put(Point.of("cpu", AttentionSuite.HEADS_SUITE, "flash", heads, Map.of("ms", 10.0 * heads, "seq", 1024.0)));
        }
        Claim head = SeedTablesSection.claims().stream().filter(c -> c.aspect().equals("Head level")).findFirst().orElseThrow();
        Claim.Evidence e = head.judge(r, "cpu");
        assertEquals(Claim.Verdict.REFUTED, e.verdict(), e.measured());
        assertTrue(e.measured().contains("10.0 ms as 1 head of 256, 80.0 ms as 8 heads of 32 (8.00×)"), e.measured());
    }

    @Test
    void should_say_not_measured_when_a_suite_is_missing() {
        CompareResults empty = new CompareResults();
        empty.putRun(new RunInfo("cpu", "cpu", "x", 2, 1024, "25", "Linux", "tiny", "t", 1, false));
        for (Claim c : SeedTablesSection.claims()) {
            Claim.Verdict v = c.judge(empty, "cpu").verdict();
            assertTrue(v == Claim.Verdict.NOT_MEASURED || v == Claim.Verdict.NOT_MEASURABLE, c.aspect() + ": " + v);
        }
        Report report = ReportBuilder.build(empty);
        assertEquals(10, report.sections().size());
        assertTrue(report.figures().isEmpty(), "no data, no charts");
    }

    @Test
    void should_fit_and_tabulate_every_family_of_the_training_sweep() {
        Report.Section training = section(REPORT, "training");
        Report.Table fits = tables(training).getFirst();
        assertEquals(LmFamily.values().length, fits.rows().size());
        List<String> gpt = fits.rows().stream().filter(r -> r.getFirst().equals("GPT")).findFirst().orElseThrow();
        double upper = Double.parseDouble(gpt.get(3).substring(0, gpt.get(3).indexOf(' ')));
        assertTrue(upper > 1.5 && upper < 2, "GPT's upper-half exponent of L + L²/1024 over 1024…4096: " + gpt);
        Report.Table values = tables(training).get(1);
        assertEquals(LmFamily.values().length * SyntheticResults.LENGTHS.length, values.rows().size());
        Report.Table missing = tables(training).get(2);
        assertEquals(List.of("GPT", "8192", "cpu", "skipped: one call would take about 9 s"), missing.rows().getFirst());
    }

    @Test
    void should_write_markdown_tables_and_a_self_contained_html_page() {
        String md = MarkdownWriter.write(REPORT);
        assertTrue(md.startsWith("# Symbiont compare"), md.substring(0, 40));
        assertEquals(REPORT.figures().size(), md.split("\\(charts/", -1).length - 1, "one image link per figure");
        assertTrue(md.contains("| aspect | the article says | cpu: measured | cpu: verdict | rule |"), "seed table header");
        Map<String, byte[]> pngs = REPORT.figures().stream().collect(Collectors.toMap(Report.Figure::name, f -> new byte[] {1, 2, 3}));
        String html = HtmlWriter.write(REPORT, pngs);
        assertEquals(REPORT.figures().size(), html.split("src=\"data:image/png;base64,AQID\"", -1).length - 1, "every chart embedded");
        assertTrue(html.contains("<strong>confirmed</strong>") && !html.contains("**"), "bold verdicts");
        assertEquals("a &lt;b&gt; <code>x &amp; y</code>", HtmlWriter.inline("a <b> `x & y`"));
    }
}
