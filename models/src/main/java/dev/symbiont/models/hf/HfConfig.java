package dev.symbiont.models.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.Excerpt;
import dev.symbiont.io.JsonFiles;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A Hugging Face {@code config.json}: its fields read by their Hugging Face names, each with the
 * default the model class gives it when the file leaves it out. A field of the wrong type or out
 * of range is an IllegalArgumentException naming the file and the field; a missing or null field
 * reads as absent. PEFT's {@code adapter_config.json} is read the same way.
 */
public final class HfConfig {
    /** config.json is a few kilobytes; this bounds what a hostile one costs to parse. */
    static final int MAX_BYTES = 4 << 20;

    private final Path file;
    private final ObjectNode root;

    HfConfig(Path file, ObjectNode root) {
        this.file = file;
        this.root = root;
    }

    /** Reads {@code file} (a config.json). */
    public static HfConfig read(Path file) throws IOException { return new HfConfig(file, JsonFiles.readObject(file, MAX_BYTES)); }

    public Path file() { return file; }

    /** The document as read, for writing back unchanged. */
    ObjectNode json() { return root; }

    /** Whether the field is present and not null. */
    public boolean has(String field) { return node(field) != null; }

    /** The field's value, or null when absent or null. */
    public JsonNode node(String field) {
        JsonNode n = root.get(field);
        return n == null || n.isNull() ? null : n;
    }

    /** {@code architectures[0]}, or null when the file lists none. */
    public String architecture() {
        JsonNode a = node("architectures");
        if (a == null) return null;
        if (!a.isArray() || a.isEmpty() || !a.get(0).isTextual()) throw invalid("architectures", a, "a list of class names");
        return a.get(0).asText();
    }

    /** A required positive integer field. */
    public int positive(String field) {
        if (!has(field)) throw new IllegalArgumentException(file + ": field '" + field + "' is missing");
        return positive(field, 0);
    }

    /** A positive integer field, or {@code absent} when the file leaves it out. */
    public int positive(String field, int absent) {
        JsonNode n = node(field);
        if (n == null) return absent;
        if (!n.canConvertToInt() || !n.isIntegralNumber() || n.intValue() <= 0) throw invalid(field, n, "a positive integer");
        return n.intValue();
    }

    /** A finite number field, or {@code absent}. */
    public double real(String field, double absent) {
        JsonNode n = node(field);
        if (n == null) return absent;
        if (!n.isNumber() || !Double.isFinite(n.doubleValue())) throw invalid(field, n, "a finite number");
        return n.doubleValue();
    }

    /** A boolean field, or {@code absent}. */
    public boolean bool(String field, boolean absent) {
        JsonNode n = node(field);
        if (n == null) return absent;
        if (!n.isBoolean()) throw invalid(field, n, "true or false");
        return n.booleanValue();
    }

    /** A string field, or {@code absent}. */
    public String text(String field, String absent) {
        JsonNode n = node(field);
        if (n == null) return absent;
        if (!n.isTextual()) throw invalid(field, n, "a string");
        return n.asText();
    }

    /** An error naming the file, the field and its value, for a value that is not what the field holds. */
    public IllegalArgumentException invalid(String field, JsonNode value, String expected) {
        return new IllegalArgumentException(file + ": field '" + field + "' = " + Excerpt.of(value) + " is not " + expected);
    }

    /** An error naming the file, the architecture, the field and its value, for a value Symbiont cannot run. */
    public IllegalArgumentException unsupported(String architecture, String field, Object value, String supported) {
        return new IllegalArgumentException(file + ": " + architecture + " with " + field + " = " + Excerpt.of(value)
                + " is not supported (supported: " + supported + ")");
    }
}
