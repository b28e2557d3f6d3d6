package dev.symbiont.bench.compare;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.AtomicFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * results.json: {@code {"format": 1, "runs": [RunInfo…], "points": [Point…]}}, written
 * atomically after every measurement so that an interrupted run keeps all it measured, and read
 * back to add another backend's column or to rebuild the report ({@code compare --report-only}).
 */
public final class ResultsJson {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private ResultsJson() {}

    /** The results as JSON text. */
    public static String toJson(CompareResults results) {
        CompareResults r = results.snapshot();
        ObjectNode root = JSON.createObjectNode();
        root.put("format", CompareResults.FORMAT);
        root.set("runs", JSON.valueToTree(r.runs()));
        root.set("points", JSON.valueToTree(r.points()));
        try {
            return JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("results.json: cannot serialise the results: " + e.getOriginalMessage(), e);
        }
    }

    /** Results from JSON text; a malformed text or another format version throws naming what is wrong. */
    public static CompareResults fromJson(String text) {
        try {
            JsonNode root = JSON.readTree(text);
            if (root == null || !root.isObject()) throw new IllegalArgumentException("results.json: not a JSON object");
            int format = root.path("format").asInt(-1);
            if (format != CompareResults.FORMAT) {
                throw new IllegalArgumentException("results.json: format " + root.path("format") + " is not " + CompareResults.FORMAT
                        + " (written by another version of symbiont compare)");
            }
            List<RunInfo> runs = Arrays.asList(JSON.treeToValue(root.path("runs"), RunInfo[].class));
            List<Point> points = Arrays.asList(JSON.treeToValue(root.path("points"), Point[].class));
            return new CompareResults(runs, points);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("results.json: " + e.getOriginalMessage(), e);
        }
    }

    /** Writes the results to {@code file} atomically: a reader sees the old file or the whole new one. */
    public static void write(CompareResults results, Path file) throws IOException {
        byte[] bytes = toJson(results).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        AtomicFiles.write(file, out -> out.write(bytes));
    }

    /** The results in {@code file}, or empty results when there is no such file. */
    public static CompareResults readOrEmpty(Path file) throws IOException {
        if (!Files.exists(file)) return new CompareResults();
        return read(file);
    }

    /** The results in {@code file}; a missing or malformed file throws naming it. */
    public static CompareResults read(Path file) throws IOException {
        try {
            return fromJson(Files.readString(file));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
        }
    }
}
