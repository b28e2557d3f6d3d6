package dev.symbiont.train;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Appends one record per line to a metrics file: JSON lines for a {@code .jsonl}/{@code .json}
 * name, CSV otherwise (a header of the first record's keys; later records must have the same
 * keys). Each line is flushed as it is written, so a crash loses at most the line in flight
 * and a resumed run keeps appending to the same file.
 */
public final class MetricsWriter implements Closeable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final boolean json;
    private final BufferedWriter out;
    private List<String> columns;

    public MetricsWriter(Path file) throws IOException {
        this.file = file;
        this.json = isJson(file);
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        boolean existing = Files.exists(file) && Files.size(file) > 0;
        if (existing && !json) columns = List.of(Files.readAllLines(file, StandardCharsets.UTF_8).getFirst().split(",", -1));
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    /**
     * A writer for a run that stands at {@code step}: rows of later steps already in the file
     * (logged after the checkpoint a run resumes from) are dropped first, so a resumed run does
     * not log a step twice; at step 0 the file starts empty.
     */
    public static MetricsWriter continuing(Path file, long step) throws IOException {
        if (Files.exists(file)) {
            boolean json = isJson(file);
            List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            List<String> kept = new java.util.ArrayList<>();
            int stepColumn = json || lines.isEmpty() ? -1 : List.of(lines.getFirst().split(",", -1)).indexOf("step");
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (!json && i == 0) {
                    kept.add(line);
                    continue;
                }
                long rowStep = json ? JSON.readTree(line).path("step").asLong(Long.MAX_VALUE)
                        : stepColumn < 0 ? Long.MAX_VALUE : Long.parseLong(line.split(",", -1)[stepColumn]);
                if (rowStep <= step) kept.add(line);
            }
            if (step == 0 || kept.size() <= (json ? 0 : 1)) Files.delete(file);
            else Files.write(file, kept, StandardCharsets.UTF_8);
        }
        return new MetricsWriter(file);
    }

    private static boolean isJson(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(".jsonl") || name.endsWith(".json");
    }

    /** Writes one record; values are numbers or strings. */
    public void write(Map<String, ?> record) {
        try {
            if (json) {
                out.write(JSON.writeValueAsString(new LinkedHashMap<>(record)));
            } else {
                if (columns == null) {
                    columns = List.copyOf(record.keySet());
                    out.write(String.join(",", columns));
                    out.newLine();
                } else if (!columns.equals(List.copyOf(record.keySet()))) {
                    throw new IllegalArgumentException("metrics " + file + ": record keys " + record.keySet()
                            + " differ from the CSV header " + columns);
                }
                StringBuilder line = new StringBuilder();
                for (String c : columns) {
                    if (!line.isEmpty()) line.append(',');
                    Object v = record.get(c);
                    line.append(v == null ? "" : v.toString().replace(',', ';'));
                }
                out.write(line.toString());
            }
            out.newLine();
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("metrics " + file + ": write failed", e);
        }
    }

    @Override
    public void close() throws IOException { out.close(); }
}
