package dev.symbiont.cli;

import dev.symbiont.bench.compare.CompareResults;
import dev.symbiont.bench.compare.Point;
import dev.symbiont.bench.compare.ResultsJson;
import dev.symbiont.bench.compare.RunInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static dev.symbiont.cli.CliRun.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CompareCommandTest {
    @Test
    void should_list_its_options_in_help() {
        CliRun r = run("compare", "--help");
        assertEquals(0, r.code(), r.err());
        for (String flag : new String[] {"DIR", "--backend", "--quick", "--only", "--families", "--resume", "--report-only"}) {
            assertTrue(r.out().contains(flag), flag + " in " + r.out());
        }
    }

    @Test
    void should_rebuild_the_report_from_results_json_without_measuring(@TempDir Path dir) throws Exception {
        CompareResults results = new CompareResults();
        results.putRun(new RunInfo("cpu", "cpu", "AMD EPYC", 2, 1024, "25", "Linux", "quick", "2026-01-01T00:00:00Z", 300, true));
        for (int len : new int[] {256, 512, 1024}) {
            results.put(Point.of("cpu", "train.seq", "gpt", len, Map.of("ms", len / 10.0, "peak_mib", len / 40.0)));
        }
        ResultsJson.write(results, dir.resolve("results.json"));
        CliRun r = run("compare", "--report-only", dir.toString());
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains("rebuilt the report"), r.out());
        assertTrue(Files.readString(dir.resolve("report.md")).contains("| GPT | 512 | cpu | 51.2 | 12.8 |"), "the value row of L = 512");
        assertTrue(Files.exists(dir.resolve("report.html")) && Files.exists(dir.resolve("charts").resolve("training-seq-ms.png")));
        assertEquals(results, ResultsJson.read(dir.resolve("results.json")), "the results are not touched");
    }

    @Test
    void should_fail_as_bad_input_without_results_or_with_an_unknown_suite(@TempDir Path dir) {
        CliRun none = run("compare", "--report-only", dir.toString());
        assertEquals(Main.BAD_INPUT, none.code());
        assertTrue(none.err().contains("no results in") && none.err().contains("run symbiont compare first"), none.err());
        CliRun suite = run("compare", "--only", "rooflines", dir.resolve("out").toString());
        assertEquals(Main.BAD_INPUT, suite.code());
        assertTrue(suite.err().contains("unknown suite 'rooflines'"), suite.err());
        CliRun family = run("compare", "--families", "rnn", dir.resolve("out").toString());
        assertEquals(Main.BAD_INPUT, family.code());
        assertTrue(family.err().contains("unknown family 'rnn'"), family.err());
    }
}
