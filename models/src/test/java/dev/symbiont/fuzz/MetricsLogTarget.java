package dev.symbiont.fuzz;

import dev.symbiont.train.MetricsWriter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MetricsWriter#continuing} on a run's metrics.csv, resuming at step 5: the rows after it
 * are dropped. A load is consistent when every row left has a step of at most 5.
 */
final class MetricsLogTarget implements FuzzTarget {
    static final long STEP = 5;

    @Override public String name() { return "metrics"; }

    @Override public String suffix() { return ".csv"; }

    @Override public Class<? extends Exception> failure() { return IOException.class; }

    @Override
    public Object load(Path file) throws Exception {
        MetricsWriter.continuing(file, STEP).close();
        return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : java.util.List.<String>of();
    }

    @Override
    public void check(Object loaded, Path file, byte[] bytes) {
        @SuppressWarnings("unchecked") java.util.List<String> lines = (java.util.List<String>) loaded;
        if (lines.isEmpty()) return;
        int column = java.util.List.of(lines.getFirst().split(",", -1)).indexOf("step");
        for (String row : lines.subList(1, lines.size())) {
            if (column < 0) continue;
            assertTrue(Long.parseLong(row.split(",", -1)[column].strip()) <= STEP, "row " + row + " kept past step " + STEP);
        }
    }
}
