package dev.symbiont.text.hf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.Excerpt;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The file a tokenizer part is read from. Every error names the file and the JSON path of the
 * part at fault ({@code pre_tokenizer.pretokenizers[1].pattern}), so a refusal says where to look.
 */
record SourceFile(Path path) {
    IOException error(String where, String what) {
        return new IOException(path + ": " + (where.isEmpty() ? "" : where + ": ") + what);
    }

    /** A component whose "type" this reader does not know, listing those it does. */
    IOException unsupported(String where, String component, String type, String supported) {
        return error(where, "unsupported " + component + " " + Excerpt.quote(type) + "; supported: " + supported);
    }

    ObjectNode object(JsonNode node, String where) throws IOException {
        if (node instanceof ObjectNode object) return object;
        throw error(where, "expected a JSON object, found " + describe(node));
    }

    /** The "type" of a component object. */
    String type(JsonNode node, String where) throws IOException {
        return text(object(node, where), "type", where);
    }

    /** A required string field. */
    String text(JsonNode parent, String field, String where) throws IOException {
        JsonNode node = parent.get(field);
        if (node == null || !node.isTextual()) throw error(where, "\"" + field + "\" must be a string, found " + describe(node));
        return node.textValue();
    }

    /** A string field that may be missing or null. */
    String textOr(JsonNode parent, String field, String where, String fallback) throws IOException {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull()) return fallback;
        if (!node.isTextual()) throw error(where, "\"" + field + "\" must be a string, found " + describe(node));
        return node.textValue();
    }

    /** A boolean field that may be missing or null. */
    boolean bool(JsonNode parent, String field, String where, boolean fallback) throws IOException {
        JsonNode node = parent.get(field);
        if (node == null || node.isNull()) return fallback;
        if (!node.isBoolean()) throw error(where, "\"" + field + "\" must be true or false, found " + describe(node));
        return node.booleanValue();
    }

    /** A required boolean field. */
    boolean requiredBool(JsonNode parent, String field, String where) throws IOException {
        JsonNode node = parent.get(field);
        if (node == null || !node.isBoolean()) throw error(where, "\"" + field + "\" must be true or false, found " + describe(node));
        return node.booleanValue();
    }

    /** A required int field at least 0. */
    int nonNegativeInt(JsonNode parent, String field, String where) throws IOException {
        JsonNode node = parent.get(field);
        if (node == null || !node.isInt() || node.intValue() < 0) {
            throw error(where, "\"" + field + "\" must be an integer at least 0, found " + describe(node));
        }
        return node.intValue();
    }

    /** A required array field. */
    ArrayNode array(JsonNode parent, String field, String where) throws IOException {
        JsonNode node = parent.get(field);
        if (node instanceof ArrayNode array) return array;
        throw error(where, "\"" + field + "\" must be an array, found " + describe(node));
    }

    /** A JSON value for a message: cut when long, "nothing" when absent. */
    static String describe(JsonNode node) {
        return node == null || node.isMissingNode() ? "nothing" : Excerpt.of(node);
    }
}
