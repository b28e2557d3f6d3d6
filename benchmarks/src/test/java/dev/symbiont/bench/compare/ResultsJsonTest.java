package dev.symbiont.bench.compare;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ResultsJsonTest {
    static CompareResults sample() {
        CompareResults r = new CompareResults();
        r.putRun(new RunInfo("cpu", "cpu", "AMD EPYC 9R14", 2, 6028, "25", "Linux", "quick", "2026-01-01T00:00:00Z", 123.5, true));
        r.putRun(new RunInfo("cuda:0", "NVIDIA H100, driver 12.8", "AMD EPYC 9R14", 2, 6028, "25", "Linux", "quick", "2026-01-02T00:00:00Z", 60, false));
        r.put(Point.of("cpu", "train.seq", "gpt", 256, Map.of("ms", 12.5, "peak_mib", 6.25)));
        r.put(Point.of("cuda:0", "train.seq", "gpt", 256, Map.of("ms", 0.75)));
        r.put(Point.missing("cpu", "train.seq", "gpt", 8192, "skipped: one call would take about 40 s"));
        r.put(Point.of("cpu", "profile", "mamba", 0, Map.of("share.scan", 0.53, "share.matmul", 0.13)));
        return r;
    }

    @Test
    void should_round_trip_runs_points_and_notes() {
        CompareResults r = sample();
        CompareResults back = ResultsJson.fromJson(ResultsJson.toJson(r));
        assertEquals(r.runs(), back.runs());
        assertEquals(r.points(), back.points());
        assertEquals(List.of("cpu", "cuda:0"), back.backends());
        assertEquals("skipped: one call would take about 40 s", back.missing("cpu", "train.seq").getFirst().note());
        assertEquals(0.53, back.series("cpu", "profile", "mamba").getFirst().value("share.scan"));
    }

    @Test
    void should_write_atomically_and_read_back_the_same_results(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sub").resolve("results.json");
        ResultsJson.write(sample(), file);
        assertEquals(sample(), ResultsJson.read(file));
        try (var files = Files.list(file.getParent())) {
            assertEquals(List.of("results.json"), files.map(p -> p.getFileName().toString()).toList(), "no temporary file left behind");
        }
        assertTrue(ResultsJson.readOrEmpty(dir.resolve("none.json")).points().isEmpty());
    }

    @Test
    void should_refuse_another_format_and_malformed_text_naming_the_file(@TempDir Path dir) throws Exception {
        var format = assertThrows(IllegalArgumentException.class, () -> ResultsJson.fromJson("{\"format\": 7, \"runs\": [], \"points\": []}"));
        assertTrue(format.getMessage().contains("format 7"), format.getMessage());
        Path bad = dir.resolve("results.json");
        Files.writeString(bad, "{\"format\": 1, \"runs\": [");
        var malformed = assertThrows(IllegalArgumentException.class, () -> ResultsJson.read(bad));
        assertTrue(malformed.getMessage().startsWith(bad.toString()), malformed.getMessage());
    }

    @Test
    void should_replace_a_remeasured_point_and_drop_non_finite_values() {
        CompareResults r = sample();
        r.put(Point.of("cpu", "train.seq", "gpt", 256, Map.of("ms", 10.0, "peak_mib", Double.NaN)));
        List<Point> gpt = r.series("cpu", "train.seq", "gpt");
        assertEquals(1, gpt.size());
        assertEquals(10.0, gpt.getFirst().value("ms"));
        assertFalse(gpt.getFirst().values().containsKey("peak_mib"), "NaN is not a measurement and has no JSON number");
        r.clear("cuda:0");
        assertEquals(List.of("cpu"), r.backends());
        assertTrue(r.of("cuda:0", "train.seq").isEmpty());
    }
}
