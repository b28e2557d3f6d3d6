package dev.symbiont.io;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.symbiont.core.Tensor;

import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;

/**
 * Writes the safetensors layout: u64 header length, compact JSON header padded with spaces to a
 * multiple of 8 (so the data starts 8-byte aligned), then each tensor's row-major little-endian
 * bytes in map order. Every argument is checked before the file is opened, and the bytes go
 * through {@link AtomicFiles}, so a failure never leaves a half-written checkpoint behind.
 */
final class SafetensorsWriter {
    /** Bytes written per step: one tensor's data streams through this instead of one big array. */
    private static final int CHUNK_BYTES = 1 << 16;
    private static final ObjectMapper MAPPER = JsonMapper.builder().build();

    private SafetensorsWriter() {}

    static void write(Path file, Map<String, Tensor> tensors, Map<String, String> metadata) throws IOException {
        byte[] header = header(tensors, metadata);
        AtomicFiles.write(file, out -> {
            byte[] prefix = ByteBuffer.allocate(HeaderParser.PREFIX_BYTES).order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(header.length).array();
            out.write(prefix);
            out.write(header);
            byte[] chunk = new byte[CHUNK_BYTES];
            for (Tensor t : tensors.values()) writeData(out, t, chunk);
        });
    }

    /** The padded JSON header; throws IllegalArgumentException for anything the format cannot hold. */
    static byte[] header(Map<String, Tensor> tensors, Map<String, String> metadata) throws IOException {
        ObjectNode root = MAPPER.createObjectNode();
        if (metadata != null && !metadata.isEmpty()) {
            ObjectNode meta = root.putObject(HeaderParser.METADATA);
            metadata.forEach((key, value) -> {
                if (key == null || value == null) {
                    throw new IllegalArgumentException("safetensors metadata must map strings to strings, got " + key + " -> " + value);
                }
                meta.put(key, value);
            });
        }
        long offset = 0;
        for (Map.Entry<String, Tensor> e : tensors.entrySet()) {
            String name = e.getKey();
            Tensor t = e.getValue();
            if (name == null) throw new IllegalArgumentException("safetensors tensor names must not be null");
            if (name.equals(HeaderParser.METADATA)) {
                throw new IllegalArgumentException("\"" + name + "\" is reserved for metadata and cannot name a tensor");
            }
            if (t == null) throw new IllegalArgumentException("tensor \"" + name + "\" is null");
            String code = DTypeCodes.code(t.dtype());
            if (code == null) {
                throw new IllegalArgumentException("tensor \"" + name + "\" has dtype " + t.dtype()
                        + ", which safetensors files from Symbiont cannot hold (" + DTypeCodes.supported() + ")");
            }
            long bytes = (long) t.numel() * t.dtype().byteSize();
            ObjectNode entry = root.putObject(name);
            entry.put("dtype", code);
            ArrayNode shape = entry.putArray("shape");
            for (int d : t.shape()) shape.add(d);
            entry.putArray("data_offsets").add(offset).add(offset + bytes);
            offset += bytes;
        }
        byte[] json = MAPPER.writeValueAsBytes(root);
        int padded = json.length + (8 - json.length % 8) % 8;
        if (padded > HeaderParser.MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("safetensors header would be " + padded + " bytes, over the "
                    + HeaderParser.MAX_HEADER_BYTES + "-byte limit readers enforce");
        }
        byte[] out = Arrays.copyOf(json, padded);
        Arrays.fill(out, json.length, padded, (byte) ' ');
        return out;
    }

    private static void writeData(OutputStream out, Tensor t, byte[] chunk) throws IOException {
        // The tensor's row-major little-endian bytes (whatever the view's strides, on any backend),
        // one tensor at a time in native memory rather than on the heap.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment bytes = t.toSegment(arena);
            for (long at = 0; at < bytes.byteSize(); at += chunk.length) {
                int count = (int) Math.min(chunk.length, bytes.byteSize() - at);
                MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, at, chunk, 0, count);
                out.write(chunk, 0, count);
            }
        }
    }
}
