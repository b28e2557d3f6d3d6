package dev.symbiont.bench.compare;

import dev.symbiont.cpu.CpuBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tiny end-to-end run: one family, the smallest sizes, three suites — the files a real run writes. */
class CompareRunTest {
    private static CompareRun.Options tiny(Path dir, boolean resume) {
        return new CompareRun.Options(dir, Sizes.tiny().withFamilies(List.of(LmFamily.GPT)), List.of("roofline", "training", "scans"), resume);
    }

    @Test
    void should_measure_save_after_each_point_and_write_the_report_keeping_other_backends(@TempDir Path dir) throws Exception {
        CompareResults earlier = new CompareResults();
        earlier.putRun(new RunInfo("cuda:0", "a GPU", "x", 2, 1024, "25", "Linux", "quick", "t", 10, true));
        earlier.put(Point.of("cuda:0", TrainingSuite.SEQ, "gpt", 16, Map.of("ms", 0.5)));
        ResultsJson.write(earlier, CompareRun.resultsFile(dir));

        List<String> finished = new ArrayList<>();
        long[] pointsSaved = new long[1];
        CompareRun run = new CompareRun(new CpuBackend(), tiny(dir, false), new CompareProgress() {
            @Override public void planned(int total) { finished.add("planned " + total); }
            @Override public void started(String label) { }
            @Override public void finished(String label, String outcome) {
                finished.add(label);
                pointsSaved[0] = readPoints(dir);                                // results.json already holds this measurement
            }
        });
        int planned = run.plan().size();
        CompareResults results = run.run();

        assertEquals("planned " + planned, finished.getFirst());
        assertEquals(planned + 1, finished.size(), "every measurement reported");
        assertEquals(results.points().size(), pointsSaved[0], "the last save held every point");
        List<Point> gpt = results.series("cpu", TrainingSuite.SEQ, "gpt");
        assertEquals(List.of(16.0, 32.0), gpt.stream().map(Point::x).toList());
        assertTrue(gpt.stream().allMatch(p -> p.value("ms") > 0 && p.value("peak_mib") > 0 && p.value("params") > 0), gpt.toString());
        assertEquals(4 * 2, results.of("cpu", ScanSuite.SUITE).stream().filter(p -> !p.series().equals("op")).count(), "4 kernels × 2 lengths");
        assertEquals(List.of("cuda:0", "cpu"), results.backends(), "the other backend's column stays");
        assertEquals(0.5, results.series("cuda:0", TrainingSuite.SEQ, "gpt").getFirst().value("ms"));
        RunInfo cpu = results.runs().stream().filter(r -> r.backend().equals("cpu")).findFirst().orElseThrow();
        assertTrue(cpu.complete() && cpu.sizes().equals("tiny") && cpu.wallSeconds() > 0, cpu.toString());

        assertEquals(results, ResultsJson.read(CompareRun.resultsFile(dir)), "results.json round-trips to what the run measured");
        String md = Files.readString(dir.resolve("report.md"));
        assertTrue(md.contains("cpu: verdict") && md.contains("cuda:0: verdict"), "a verdict column per backend");
        assertTrue(Files.readString(dir.resolve("report.html")).contains("data:image/png;base64,"));
        try (var pngs = Files.list(dir.resolve("charts"))) {
            List<Path> files = pngs.toList();
            assertFalse(files.isEmpty());
            for (Path png : files) assertTrue(Files.size(png) > 1000, png + " is " + Files.size(png) + " bytes");
        }

        CompareRun resumed = new CompareRun(new CpuBackend(), tiny(dir, true), CompareProgress.SILENT);
        assertEquals(List.of(), resumed.plan(), "resuming a complete run measures nothing");
    }

    @Test
    void should_stop_after_the_measurement_in_flight_and_still_write_the_report(@TempDir Path dir) throws Exception {
        CompareRun[] run = new CompareRun[1];
        run[0] = new CompareRun(new CpuBackend(), tiny(dir, false), new CompareProgress() {
            @Override public void planned(int total) { }
            @Override public void started(String label) { }
            @Override public void finished(String label, String outcome) { run[0].stop(); }   // Ctrl-C during the first measurement
        });
        CompareResults results = run[0].run();
        assertTrue(run[0].stopped());
        assertEquals(1, results.points().size(), "the measurement in flight finished, no other began");
        RunInfo cpu = results.runs().getFirst();
        assertFalse(cpu.complete(), "an interrupted run is marked incomplete");
        assertEquals(results, ResultsJson.read(CompareRun.resultsFile(dir)));
        assertTrue(Files.readString(dir.resolve("report.md")).contains("no (interrupted or running)"));
        CompareRun resumed = new CompareRun(new CpuBackend(), tiny(dir, true), CompareProgress.SILENT);
        assertEquals(run[0].plan().size() - 1, resumed.plan().size(), "resuming measures only what is missing");
    }

    @Test
    void should_refuse_an_unknown_suite_naming_the_known_ones(@TempDir Path dir) {
        var e = assertThrows(IllegalArgumentException.class, () -> new CompareRun.Options(dir, Sizes.tiny(), List.of("rooflines"), false));
        assertTrue(e.getMessage().contains("'rooflines'") && e.getMessage().contains("roofline, training"), e.getMessage());
        var f = assertThrows(IllegalArgumentException.class, () -> LmFamily.parse("gpt,rnn"));
        assertTrue(f.getMessage().contains("'rnn'") && f.getMessage().contains("mamba2"), f.getMessage());
    }

    private static long readPoints(Path dir) {
        try {
            return ResultsJson.read(CompareRun.resultsFile(dir)).points().size();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
