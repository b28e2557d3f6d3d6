package dev.symbiont.train;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Appends one record per line to a metrics file: JSON lines for a {@code .jsonl}/{@code .json}
 * name, CSV otherwise (a header of the first record's keys; later records must have the same
 * keys). Each line is flushed as it is written, so a crash loses at most the line in flight
 * and a resumed run keeps appending to the same file.
 *
 * <p>A resumed run may log other columns than the CSV it continues (a file written before a
 * model's metrics were logged): its first record then widens the header to the file's columns
 * followed by the new ones, the earlier rows get empty cells for the new columns and later rows
 * for the columns no longer logged, and the change is reported once through the writer's note.
 * From then on every record must have the header's keys, as in a fresh file.
 */
public final class MetricsWriter implements Closeable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path file;
    private final boolean json;
    private final Consumer<String> note;
    private BufferedWriter out;
    private List<String> columns;
    /** The keys every CSV record must have; null until the first record (which may widen a continued file's header). */
    private Set<String> logged;

    public MetricsWriter(Path file) throws IOException {
        this(file, line -> { });
    }

    /** {@code note}: where the one line about a widened CSV header goes (a trainer's progress messages). */
    public MetricsWriter(Path file, Consumer<String> note) throws IOException {
        this.file = file;
        this.json = isJson(file);
        this.note = note;
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
        return continuing(file, step, line -> { });
    }

    /** As {@link #continuing(Path, long)}, with the note a widened CSV header reports. */
    public static MetricsWriter continuing(Path file, long step, Consumer<String> note) throws IOException {
        if (Files.exists(file)) {
            if (!Files.isRegularFile(file)) throw new IOException(file + ": the metrics log is not a regular file");
            boolean json = isJson(file);
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (java.nio.charset.CharacterCodingException e) {
                throw new IOException(file + ": the metrics log is not valid UTF-8", e);
            }
            List<String> kept = new java.util.ArrayList<>();
            int stepColumn = json || lines.isEmpty() ? -1 : List.of(lines.getFirst().split(",", -1)).indexOf("step");
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (!json && i == 0) {
                    kept.add(line);
                    continue;
                }
                if (line.isBlank()) continue;
                if (rowStep(file, i + 1, line, json, stepColumn) <= step) kept.add(line);
            }
            if (step == 0 || kept.size() <= (json ? 0 : 1)) Files.delete(file);
            else Files.write(file, kept, StandardCharsets.UTF_8);
        }
        return new MetricsWriter(file, note);
    }

    /** A row's step; an error naming the file, the line and what is wrong with it. */
    private static long rowStep(Path file, int lineNumber, String line, boolean json, int stepColumn) throws IOException {
        try {
            if (json) {
                var step = JSON.readTree(line).path("step");
                if (!step.isIntegralNumber()) throw new IOException(file + ", line " + lineNumber + ": the row has no whole-number \"step\"");
                return step.asLong();
            }
            if (stepColumn < 0) return Long.MAX_VALUE;
            String[] cells = line.split(",", -1);
            if (cells.length <= stepColumn) {
                throw new IOException(file + ", line " + lineNumber + ": the row has " + cells.length + " columns, the header names the step in column "
                        + (stepColumn + 1));
            }
            return Long.parseLong(cells[stepColumn].strip());
        } catch (NumberFormatException e) {
            throw new IOException(file + ", line " + lineNumber + ": the step is not a whole number");
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IOException(file + ", line " + lineNumber + ": the row is not JSON (" + e.getOriginalMessage() + ")");
        }
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
                    logged = Set.copyOf(columns);
                    out.write(String.join(",", columns));
                    out.newLine();
                } else if (logged == null) {
                    logged = Set.copyOf(record.keySet());
                    if (!logged.equals(Set.copyOf(columns))) widen(record.keySet(), record.get("step"));
                } else if (!logged.equals(record.keySet())) {
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
            throw new UncheckedIOException("metrics " + file + ": write failed: " + e.getMessage(), e);
        }
    }

    /**
     * Rewrites the CSV under the file's columns followed by those of {@code keys} it lacks, its rows
     * padded with empty cells (written to a sibling file, then moved over the old one).
     */
    private void widen(Set<String> keys, Object step) throws IOException {
        List<String> added = new ArrayList<>(keys);
        added.removeAll(columns);
        List<String> dropped = columns.stream().filter(c -> !keys.contains(c)).toList();
        List<String> widened = new ArrayList<>(columns);
        widened.addAll(added);
        out.close();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<String> rewritten = new ArrayList<>(lines.size());
        rewritten.add(String.join(",", widened));
        String padding = ",".repeat(added.size());
        for (String line : lines.subList(1, lines.size())) rewritten.add(line + padding);
        Path temp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(temp, rewritten, StandardCharsets.UTF_8);
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
        columns = List.copyOf(widened);
        List<String> changes = new ArrayList<>();
        if (!added.isEmpty()) changes.add("the header also has " + String.join(", ", added) + " (empty in the earlier rows)");
        if (!dropped.isEmpty()) changes.add(String.join(", ", dropped) + " are no longer logged (empty from then on)");
        note.accept("metrics " + file + ": resumed with other columns; from step " + step + " on " + String.join("; ", changes));
    }

    @Override
    public void close() throws IOException { out.close(); }
}
