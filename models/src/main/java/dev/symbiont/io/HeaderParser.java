package dev.symbiont.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.NullNode;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Reads and validates a safetensors header. Everything a header claims is checked against the
 * file before anyone allocates from it: the length prefix against a cap and the file size, and
 * each entry's JSON shape ({@link EntryParser}), then the byte ranges against the data section
 * ({@link DataSectionCheck}).
 */
final class HeaderParser {
    static final String METADATA = "__metadata__";
    /** Bytes of the little-endian u64 header length that starts every file. */
    static final int PREFIX_BYTES = 8;
    /** The reference implementation's cap; a larger header is corrupt or hostile, not a model. */
    static final long MAX_HEADER_BYTES = 100_000_000L;

    /** serde_json's recursion limit, which the reference implementation parses with; a header needs 3. */
    static final int MAX_NESTING = 128;

    // Strings and names may be as long as the header itself, as in the reference implementation;
    // nested duplicate keys fail instead of silently keeping the last one.
    private static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
                    .streamReadConstraints(StreamReadConstraints.builder()
                            .maxStringLength((int) MAX_HEADER_BYTES)
                            .maxNameLength((int) MAX_HEADER_BYTES)
                            .maxNestingDepth(MAX_NESTING)
                            .build())
                    .build())
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .build();

    private HeaderParser() {}

    /** Reads the length prefix and header from {@code channel}; touches no tensor data. */
    static SafetensorsHeader read(Path file, FileChannel channel) throws IOException {
        long size = channel.size();
        if (size < PREFIX_BYTES) {
            throw new SafetensorsFormatException(file, null, "file is " + size
                    + " bytes, too short for the 8-byte header length at file offset 0");
        }
        ByteBuffer prefix = ByteBuffer.allocate(PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        readFully(file, channel, prefix, 0);
        long length = prefix.getLong(0); // unsigned: a value past 2^63 reads as negative
        if (Long.compareUnsigned(length, MAX_HEADER_BYTES) > 0) {
            throw new SafetensorsFormatException(file, null, "header length " + Long.toUnsignedString(length)
                    + " (file offsets 0-7) is over the " + MAX_HEADER_BYTES + "-byte limit");
        }
        if (length > size - PREFIX_BYTES) {
            throw new SafetensorsFormatException(file, null, "header length " + length
                    + " (file offsets 0-7) runs past the end of the file: the header would end at file offset "
                    + (PREFIX_BYTES + length) + " but the file is " + size + " bytes");
        }
        byte[] json = new byte[(int) length];
        readFully(file, channel, ByteBuffer.wrap(json), PREFIX_BYTES);
        return parse(file, json, size - PREFIX_BYTES - length);
    }

    /** Validates the header bytes of a file whose data section is {@code dataLength} bytes. */
    static SafetensorsHeader parse(Path file, byte[] json, long dataLength) throws SafetensorsFormatException {
        checkUtf8(file, json);
        checkStart(file, json);
        long dataStart = PREFIX_BYTES + (long) json.length;
        Map<String, TensorInfo> tensors = new LinkedHashMap<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        EntryParser entries = new EntryParser(file, dataStart, dataLength);
        // A copy of the factory has a field-name table of its own. The shared one keeps names from
        // every document parsed (thousands, of any length) and each parse copies it: after 35,000
        // fuzzed headers that was 8 MB per tiny header.
        try (JsonParser p = MAPPER.getFactory().copy().createParser(json)) {
            try {
                readObject(file, p, entries, tensors, metadata);
            } catch (JsonProcessingException e) {
                throw invalidJson(file, entryName(p), e);
            }
        } catch (SafetensorsFormatException e) {
            throw e;
        } catch (IOException e) {
            // A parser over a byte array does no I/O; anything else is a format problem.
            throw new SafetensorsFormatException(file, null, "header cannot be parsed: " + Excerpt.message(e.getMessage()), e);
        }
        DataSectionCheck.coversExactly(file, tensors.values(), dataStart, dataLength);
        return new SafetensorsHeader(tensors, metadata, dataStart, dataLength);
    }

    /** Walks the top-level object, handing each value to {@code entries}; names must be unique. */
    private static void readObject(Path file, JsonParser p, EntryParser entries, Map<String, TensorInfo> tensors,
                                   Map<String, String> metadata) throws IOException {
        JsonToken first = p.nextToken();
        if (first == null) {
            throw new SafetensorsFormatException(file, null, "header (file bytes [8, " + entries.dataStart()
                    + ")) is blank, expected a JSON object");
        }
        if (first != JsonToken.START_OBJECT) {
            throw new SafetensorsFormatException(file, null, "header at file offset " + at(p)
                    + " is a JSON " + describe(first) + ", not an object");
        }
        Map<String, Long> seen = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            long at = at(p);
            Long previous = seen.putIfAbsent(name, at);
            if (previous != null) {
                throw about(file, name, "appears twice in the header (at file offsets " + previous + " and " + at + ")");
            }
            p.nextToken();
            JsonNode value = MAPPER.readTree(p);
            if (value == null) value = NullNode.getInstance();
            if (name.equals(METADATA)) {
                metadata.putAll(entries.metadata(value, at));
            } else {
                tensors.put(name, entries.entry(name, value, at));
            }
        }
        if (p.nextToken() != null) {
            throw new SafetensorsFormatException(file, null, "header has content after its closing brace, at file offset " + at(p));
        }
    }

    /**
     * The top-level name being read when the parser failed, or null outside any entry. Jackson
     * reads a value's first token together with its name, so this cannot be tracked in the loop.
     */
    private static String entryName(JsonParser p) {
        JsonStreamContext c = p.getParsingContext();
        while (c != null && c.getParent() != null && !c.getParent().inRoot()) c = c.getParent();
        return c != null && c.inObject() ? c.getCurrentName() : null;
    }

    private static SafetensorsFormatException invalidJson(Path file, String name, JsonProcessingException e) {
        JsonLocation where = e.getLocation();
        String offset = where == null || where.getByteOffset() < 0 ? "" : " at file offset " + (PREFIX_BYTES + where.getByteOffset());
        String detail = (name == null ? "header" : "entry") + " is not valid JSON" + offset + ": " + Excerpt.message(e.getOriginalMessage());
        SafetensorsFormatException failure = name == null ? new SafetensorsFormatException(file, null, detail) : about(file, name, detail);
        failure.initCause(e);
        return failure;
    }

    /** An error about a top-level entry: a tensor, or the metadata, which is not one. */
    private static SafetensorsFormatException about(Path file, String name, String detail) {
        return name.equals(METADATA) ? new SafetensorsFormatException(file, null, METADATA + " " + detail)
                : new SafetensorsFormatException(file, name, detail);
    }

    /** File offset of the parser's current token. */
    private static long at(JsonParser p) {
        return PREFIX_BYTES + p.currentTokenLocation().getByteOffset();
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_ARRAY -> "array";
            case VALUE_STRING -> "string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
            case VALUE_TRUE, VALUE_FALSE -> "boolean";
            case VALUE_NULL -> "null";
            default -> token.name().toLowerCase(Locale.ROOT);
        };
    }

    /**
     * Rejects malformed UTF-8 and NUL bytes up front, so the message can name the first bad byte
     * and the JSON parser, finding neither a byte-order mark nor a NUL, can only read UTF-8.
     */
    private static void checkUtf8(Path file, byte[] json) throws SafetensorsFormatException {
        int bad = Utf8.firstBadByte(json);
        if (bad < 0) return;
        long at = PREFIX_BYTES + bad;
        throw new SafetensorsFormatException(file, null, json[bad] == 0
                ? "header holds a NUL byte at file offset " + at + ", which JSON text cannot contain"
                        + " (is the header UTF-16 or UTF-32? it must be UTF-8)"
                : "header is not valid UTF-8 at file offset " + at);
    }

    /**
     * The header must begin with '{' itself, as the reference implementation requires: no
     * byte-order mark, no leading whitespace. A blank header, or one that is another JSON value,
     * is left to the parser, whose messages say what it found.
     */
    private static void checkStart(Path file, byte[] json) throws SafetensorsFormatException {
        String found;
        if (json.length >= 3 && (json[0] & 0xFF) == 0xEF && (json[1] & 0xFF) == 0xBB && (json[2] & 0xFF) == 0xBF) {
            found = "a UTF-8 byte-order mark";
        } else if (json.length > 0 && whitespace(json[0]) && !blank(json)) {
            found = String.format("whitespace (byte 0x%02X)", json[0]);
        } else {
            return;
        }
        throw new SafetensorsFormatException(file, null, "header must start with '{' at file offset " + PREFIX_BYTES
                + ", but starts with " + found);
    }

    private static boolean blank(byte[] json) {
        for (byte b : json) if (!whitespace(b)) return false;
        return true;
    }

    /** JSON's four whitespace bytes. */
    private static boolean whitespace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\r';
    }

    /** Fills {@code buffer} from {@code position}; a file cut short meanwhile is a format error too. */
    private static void readFully(Path file, FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        while (buffer.hasRemaining()) {
            int n = channel.read(buffer, position + buffer.position());
            if (n < 0) {
                throw new SafetensorsFormatException(file, null, "file ended while reading its header, at file offset "
                        + (position + buffer.position()));
            }
        }
    }
}
