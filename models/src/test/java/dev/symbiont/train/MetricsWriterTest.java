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
    void should_widen_the_header_of_a_csv_a_resumed_run_logs_more_columns_into() throws Exception {
        Path file = dir.resolve("m.csv");
        Files.write(file, List.of("step,loss,old", "1,0.9,a", "2,0.8,b", "3,0.7,c"));
        List<String> notes = new java.util.ArrayList<>();
        try (MetricsWriter w = MetricsWriter.continuing(file, 2, notes::add)) {
            for (long s = 3; s <= 4; s++) {
                Map<String, Object> row = new java.util.LinkedHashMap<>();
                row.put("step", s);
                row.put("loss", 0.5);
                row.put("load_0", 0.25);
                w.write(row);
            }
            Map<String, Object> odd = new java.util.LinkedHashMap<>(Map.of("step", 5L));
            var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> w.write(odd));
            org.junit.jupiter.api.Assertions.assertTrue(e.getMessage().contains("differ from the CSV header"), e.getMessage());
        }
        assertEquals(List.of("step,loss,old,load_0", "1,0.9,a,", "2,0.8,b,", "3,0.5,,0.25", "4,0.5,,0.25"), Files.readAllLines(file));
        assertEquals(1, notes.size(), notes.toString());
        org.junit.jupiter.api.Assertions.assertTrue(notes.getFirst().contains("from step 3") && notes.getFirst().contains("load_0")
                && notes.getFirst().contains("old are no longer logged"), notes.getFirst());
    }

    @Test
    void should_start_a_fresh_file_at_step_zero() throws Exception {
        Path file = dir.resolve("m.csv");
        write(file, 1, 3);
        write(file, 1, 2);
        assertEquals(List.of("step", "1", "2"), Files.readAllLines(file));
    }
}
