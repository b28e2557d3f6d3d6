package dev.symbiont.text;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.io.AtomicFiles;
import dev.symbiont.io.Excerpt;
import dev.symbiont.io.InvalidJson;
import dev.symbiont.io.Utf8;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The JSON envelope shared by the tokenizers: {@code {"kind": "char" | "bpe", "version": 1, ...}}.
 * Every problem is reported as an IOException that names the file.
 *
 * <p>Reading is strict, because a tokenizer file may come from a stranger: at most
 * {@link #MAX_FILE_BYTES}, UTF-8 only (checked here, so the parser cannot guess UTF-16 or
 * UTF-32), one JSON object with nothing after it, no key twice, nesting at most
 * {@link #MAX_NESTING} deep.
 */
final class TokenizerJson {
    static final int VERSION = 1;
    /**
     * The largest tokenizer file read: 16 MiB holds over a million merges (GPT-2's 50,000 take
     * 600 KB), and bounds the parsed tree, which takes about 15 times the file.
     */
    static final int MAX_FILE_BYTES = 16 << 20;
    /** A tokenizer document nests 3 deep; this is serde_json's limit, as for safetensors headers. */
    static final int MAX_NESTING = 128;
    static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

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
        return parse(file, readBounded(file, MAX_FILE_BYTES));
    }

    /** The root object of a tokenizer document read as {@code bytes}, checking the version. */
    static ObjectNode parse(Path file, byte[] bytes) throws IOException {
        if (bytes.length > MAX_FILE_BYTES) {
            throw malformed(file, "the file is over " + MAX_FILE_BYTES + " bytes, the limit for a tokenizer");
        }
        int bad = Utf8.firstBadByte(bytes);
        if (bad >= 0) {
            throw malformed(file, (bytes[bad] == 0 ? "a NUL byte" : "bytes that are not UTF-8") + " at offset " + bad
                    + "; a tokenizer file is UTF-8 JSON");
        }
        JsonNode root;
        try {
            // A factory of its own, so the shared field-name table does not grow with every file read.
            try (JsonParser parser = MAPPER.getFactory().copy().createParser(bytes)) {
                root = MAPPER.readTree(parser);
            }
        } catch (IOException e) { // a parser over a byte array does no I/O: this is the content
            throw InvalidJson.of(file, e);
        }
        if (root == null || root.isMissingNode()) throw malformed(file, "the file is empty");
        if (!(root instanceof ObjectNode object)) throw malformed(file, "expected a JSON object, found " + root.getNodeType());
        JsonNode version = object.get("version");
        if (version == null || !version.isInt() || version.intValue() != VERSION) {
            throw malformed(file, "unsupported \"version\" " + Excerpt.of(version) + "; this reader understands " + VERSION);
        }
        kind(file, object);
        return object;
    }

    /** The file's bytes, refusing one over {@code limit} before reading it all. */
    static byte[] readBounded(Path file, int limit) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] bytes = in.readNBytes(limit + 1);
            if (bytes.length > limit) {
                throw malformed(file, "the file is over " + limit + " bytes, the limit for a tokenizer");
            }
            return bytes;
        }
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
            throw malformed(file, "holds a " + Excerpt.quote(kind) + " tokenizer, not a \"" + expectedKind + "\" one");
        }
        return root;
    }

    /** The array field {@code name}, required. */
    static JsonNode array(Path file, ObjectNode root, String name) throws IOException {
        JsonNode node = root.get(name);
        if (node == null || !node.isArray()) throw malformed(file, "\"" + name + "\" must be an array");
        return node;
    }

    /** Element {@code index} of the array {@code name}, which must be an int (the place is named only on failure). */
    static int intAt(Path file, JsonNode node, String name, int index) throws IOException {
        if (node == null || !node.isInt()) {
            throw malformed(file, name + "[" + index + "] must be an integer, found " + Excerpt.of(node));
        }
        return node.intValue();
    }

    static IOException malformed(Path file, String what) {
        return new IOException(file + ": malformed tokenizer file: " + what);
    }
}
