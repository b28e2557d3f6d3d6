package dev.symbiont.io;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads and writes the safetensors checkpoint format
 * (https://github.com/huggingface/safetensors): an 8-byte little-endian header length, a JSON
 * header naming each tensor's dtype, shape and byte range, then the raw data. Dtypes F32, F16,
 * BF16, I32 and I64 map to Symbiont's float32, float16, bfloat16, int32 and int64.
 *
 * <p>Reading validates the whole header against the file before allocating any tensor, so a
 * corrupt file throws {@link SafetensorsFormatException} and loads nothing. Data is memory-mapped
 * (through a {@link MemorySegment}, so files past 2 GiB work) and copied into backend storage.
 */
public final class Safetensors {
    private Safetensors() {}

    /** Writes tensors (in the map's iteration order) with no metadata. */
    public static void write(Path file, Map<String, Tensor> tensors) throws IOException {
        write(file, tensors, Map.of());
    }

    /**
     * Writes tensors in the map's iteration order (use a LinkedHashMap to choose it) and string
     * metadata, replacing {@code file} atomically. Views are written as their row-major
     * elements. Throws IllegalArgumentException, before touching the disk, for a dtype the format
     * cannot hold or a name that is null or {@code "__metadata__"}.
     */
    public static void write(Path file, Map<String, Tensor> tensors, Map<String, String> metadata) throws IOException {
        SafetensorsWriter.write(file, tensors, metadata);
    }

    /** Loads every tensor onto {@link Backends#current()}. */
    public static SafetensorsFile read(Path file) throws IOException {
        return read(file, Backends.current());
    }

    /** Loads every tensor onto {@code backend}, contiguous, in header order. */
    public static SafetensorsFile read(Path file, Backend backend) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            SafetensorsHeader header = HeaderParser.read(file, channel);
            MemorySegment data = header.dataLength() == 0 ? MemorySegment.NULL
                    : channel.map(FileChannel.MapMode.READ_ONLY, header.dataStart(), header.dataLength(), arena);
            Map<String, Tensor> tensors = new LinkedHashMap<>();
            try {
                for (TensorInfo info : header.tensors().values()) tensors.put(info.name(), load(data, info, backend));
            } catch (RuntimeException | Error e) {
                // An allocation failure part way must not leave device memory held by half a model.
                for (Tensor t : tensors.values()) t.storage().release();
                throw e;
            }
            return new SafetensorsFile(tensors, header.metadata());
        }
    }

    /** The validated header (names, dtypes, shapes, offsets, metadata) without reading any tensor data. */
    public static SafetensorsHeader header(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return HeaderParser.read(file, channel);
        }
    }

    private static Tensor load(MemorySegment data, TensorInfo info, Backend backend) {
        int n = info.numel();
        Object host = DTypeCodes.newArray(info.dtype(), n);
        MemorySegment.copy(data, DTypeCodes.layout(info.dtype()), info.begin(), host, 0, n);
        return Tensor.of(backend.upload(info.dtype(), host), info.shape());
    }
}
