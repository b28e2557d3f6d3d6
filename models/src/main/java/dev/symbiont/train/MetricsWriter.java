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
        String name = file.getFileName().toString();
        this.json = name.endsWith(".jsonl") || name.endsWith(".json");
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        boolean existing = Files.exists(file) && Files.size(file) > 0;
        if (existing && !json) columns = List.of(Files.readAllLines(file, StandardCharsets.UTF_8).getFirst().split(",", -1));
        this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
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
