package dev.symbiont.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * JSON documents that come with a model (Hugging Face's {@code config.json},
 * {@code generation_config.json}, {@code model.safetensors.index.json}), read strictly because a
 * model directory may come from a stranger: a size limit checked before reading, UTF-8 only, one
 * object with nothing after it, no key twice, bounded nesting. {@code Infinity} and {@code NaN}
 * read as numbers, as Python's json writes them (a field that must be finite says so where it is
 * read). Every problem is an IOException naming the file.
 */
public final class JsonFiles {
    /** serde_json's nesting limit, as for safetensors headers. */
    static final int MAX_NESTING = 128;
    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    // Python's json writes float('inf') as Infinity: Mamba-2's config.json has "time_step_limit": [0.0, Infinity]
                    .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                    .build())
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();

    private JsonFiles() {}

    /** A new, empty object to fill and {@link #write}. */
    public static ObjectNode newObject() { return MAPPER.createObjectNode(); }

    /**
     * The JSON object {@code file} holds.
     *
     * @param maxBytes the largest file accepted; a larger one is refused before it is read
     * @throws IOException naming the file when it cannot be read, is too large, is not UTF-8, or is not one JSON object
     */
    public static ObjectNode readObject(Path file, int maxBytes) throws IOException {
        byte[] bytes = readUtf8(file, maxBytes);
        JsonNode root;
        try (JsonParser parser = MAPPER.getFactory().copy().createParser(bytes)) { // its own field-name table per file
            root = MAPPER.readTree(parser);
        } catch (JsonProcessingException e) {
            throw InvalidJson.of(file, e);
        }
        if (!(root instanceof ObjectNode object)) {
            throw new IOException(file + ": expected a JSON object, found " + (root == null || root.isMissingNode() ? "nothing" : root.getNodeType()));
        }
        return object;
    }

    /**
     * The bytes of {@code file}, refused before reading when there are more than {@code maxBytes},
     * and checked to be UTF-8 without NUL bytes: the first read of every JSON file a model or
     * tokenizer brings.
     *
     * @throws IOException naming the file and, for bad bytes, their offset
     */
    public static byte[] readUtf8(Path file, int maxBytes) throws IOException {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(maxBytes + 1);
        }
        if (bytes.length > maxBytes) throw new IOException(file + ": over " + maxBytes + " bytes, more than such a file holds");
        int bad = Utf8.firstBadByte(bytes);
        if (bad >= 0) {
            throw new IOException(file + ": " + (bytes[bad] == 0 ? "a NUL byte" : "bytes that are not UTF-8") + " at offset " + bad
                    + "; the file must be UTF-8");
        }
        return bytes;
    }

    /** Writes {@code root}, indented, replacing {@code file} atomically. */
    public static void write(Path file, JsonNode root) throws IOException {
        byte[] json = MAPPER.writeValueAsBytes(root); // serialised first: Jackson would close the stream AtomicFiles still syncs
        AtomicFiles.write(file, out -> out.write(json));
    }
}
