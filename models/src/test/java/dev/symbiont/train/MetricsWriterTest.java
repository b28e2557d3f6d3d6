package dev.symbiont.train;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class MetricsWriterTest {
    @TempDir
    Path dir;

    private static void write(Path file, long fromStep, long toStep) throws Exception {
        try (MetricsWriter w = MetricsWriter.continuing(file, fromStep - 1)) {
            for (long s = fromStep; s <= toStep; s++) w.write(Map.of("step", s));
        }
    }

    @Test
    void should_drop_rows_logged_after_the_step_a_run_resumes_from() throws Exception {
        for (String name : new String[] {"m.csv", "m.jsonl"}) {
            Path file = dir.resolve(name);
            write(file, 1, 5);      // a run that crashed after logging step 5, its checkpoint at step 3
            write(file, 4, 6);      // the resumed run logs 4..6 again
            List<String> lines = Files.readAllLines(file);
            List<String> rows = name.endsWith(".csv") ? lines.subList(1, lines.size()) : lines;
            assertEquals(6, rows.size(), name + ": " + lines);
            for (int i = 0; i < rows.size(); i++) assertEquals(true, rows.get(i).contains(Integer.toString(i + 1)), lines.toString());
        }
    }

    @Test
    void should_start_a_fresh_file_at_step_zero() throws Exception {
        Path file = dir.resolve("m.csv");
        write(file, 1, 3);
        write(file, 1, 2);
        assertEquals(List.of("step", "1", "2"), Files.readAllLines(file));
    }
}
