package dev.symbiont.text;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.AtomicFiles;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JSON envelope shared by the tokenizers: {@code {"kind": "char" | "bpe", "version": 1, ...}}.
 * Every problem is reported as an IOException that names the file.
 */
final class TokenizerJson {
    static final int VERSION = 1;
    static final ObjectMapper MAPPER = new ObjectMapper();

    private TokenizerJson() {}

    /** A new document with the envelope fields set. */
    static ObjectNode envelope(String kind) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("kind", kind);
        root.put("version", VERSION);
        return root;
    }

    static void write(Path file, ObjectNode root) throws IOException {
        // Serialise first: Jackson would close the stream AtomicFiles still has to sync.
        byte[] json = MAPPER.writeValueAsBytes(root);
        AtomicFiles.write(file, out -> out.write(json));
    }

    /** Reads a tokenizer document and returns its root object, checking the version. */
    static ObjectNode read(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        JsonNode root;
        try {
            root = MAPPER.readTree(bytes);
        } catch (JsonProcessingException e) {
            throw new IOException(file + ": not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (root == null || root.isMissingNode()) throw malformed(file, "the file is empty");
        if (!(root instanceof ObjectNode object)) throw malformed(file, "expected a JSON object, found " + root.getNodeType());
        JsonNode version = object.get("version");
        if (version == null || !version.canConvertToExactIntegral() || version.asInt() != VERSION) {
            throw malformed(file, "unsupported \"version\" " + version + "; this reader understands " + VERSION);
        }
        kind(file, object);
        return object;
    }

    /** The "kind" field. */
    static String kind(Path file, ObjectNode root) throws IOException {
        JsonNode kind = root.get("kind");
        if (kind == null || !kind.isTextual()) {
            throw malformed(file, "no \"kind\" field naming the tokenizer (\"char\" or \"bpe\")");
        }
        return kind.asText();
    }

    /** Reads a document and checks it holds the expected kind. */
    static ObjectNode read(Path file, String expectedKind) throws IOException {
        ObjectNode root = read(file);
        String kind = kind(file, root);
        if (!kind.equals(expectedKind)) {
            throw malformed(file, "holds a \"" + kind + "\" tokenizer, not a \"" + expectedKind + "\" one");
        }
        return root;
    }

    /** The array field {@code name}, required. */
    static JsonNode array(Path file, ObjectNode root, String name) throws IOException {
        JsonNode node = root.get(name);
        if (node == null || !node.isArray()) throw malformed(file, "\"" + name + "\" must be an array");
        return node;
    }

    /** An int element, with its place named when it is not one. */
    static int intAt(Path file, JsonNode node, String where) throws IOException {
        if (node == null || !node.isInt()) throw malformed(file, where + " must be an integer, found " + node);
        return node.intValue();
    }

    static IOException malformed(Path file, String what) {
        return new IOException(file + ": malformed tokenizer file: " + what);
    }
}
