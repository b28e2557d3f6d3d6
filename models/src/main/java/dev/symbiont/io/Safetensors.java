package dev.symbiont.io;

import dev.symbiont.core.DType;
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
 * corrupt file throws {@link SafetensorsFormatException} and loads nothing. The data section is
 * memory-mapped (a {@link MemorySegment}, so files past 2 GiB work) and each tensor is uploaded
 * from its slice of the mapping straight into backend storage: the file's bytes never pass
 * through a Java array on the way, so loading holds the model once, not twice.
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

    /** Loads every tensor onto {@code backend}, contiguous, in header order, in the dtype the file holds. */
    public static SafetensorsFile read(Path file, Backend backend) throws IOException {
        return load(file, backend, null);
    }

    /**
     * Loads every tensor onto {@code backend} with its floating-point tensors converted to
     * {@code floating} (Hugging Face's {@code torch_dtype}: a bfloat16 checkpoint for a model that
     * computes in float32); integer tensors keep their dtype. Each tensor is converted on the
     * backend as it loads and its file-dtype buffer released at once, so the temporary is one
     * tensor in the file's dtype, never the whole file.
     */
    public static SafetensorsFile read(Path file, Backend backend, DType floating) throws IOException {
        if (floating == null || !floating.isFloating()) {
            throw new IllegalArgumentException("read " + file + ": tensors can be converted to a floating dtype, not " + floating);
        }
        return load(file, backend, floating);
    }

    /** What {@link #forEachTensor} hands each tensor to. */
    @FunctionalInterface
    public interface TensorVisitor {
        /** Takes one tensor; it is released when this returns, so keep a copy of what is kept. */
        void accept(String name, Tensor tensor) throws IOException;
    }

    /**
     * Uploads the tensors of {@code file} one at a time, in the order of their data, onto
     * {@code backend} (floating ones converted to {@code floating}; null keeps the file's dtypes),
     * hands each to {@code each} and releases it when {@code each} returns: a loader that copies
     * each into its model holds one tensor of the file at a time, never the whole file. The header
     * is validated before any tensor is read.
     */
    public static void forEachTensor(Path file, Backend backend, DType floating, TensorVisitor each) throws IOException {
        if (floating != null && !floating.isFloating()) {
            throw new IllegalArgumentException("forEachTensor " + file + ": tensors can be converted to a floating dtype, not " + floating);
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            SafetensorsHeader header = HeaderParser.read(file, channel);
            MemorySegment data = header.dataLength() == 0 ? MemorySegment.NULL
                    : channel.map(FileChannel.MapMode.READ_ONLY, header.dataStart(), header.dataLength(), arena);
            for (TensorInfo info : header.tensors().values().stream().sorted(java.util.Comparator.comparingLong(TensorInfo::begin)).toList()) {
                Tensor t = load(data, info, backend, floating);
                try {
                    each.accept(info.name(), t);
                } finally {
                    t.storage().release();
                }
            }
        }
    }

    /** The validated header (names, dtypes, shapes, offsets, metadata) without reading any tensor data. */
    public static SafetensorsHeader header(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            return HeaderParser.read(file, channel);
        }
    }

    /** Maps the data section and uploads each tensor from its slice of the mapping; {@code floating} null keeps dtypes. */
    private static SafetensorsFile load(Path file, Backend backend, DType floating) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ); Arena arena = Arena.ofConfined()) {
            SafetensorsHeader header = HeaderParser.read(file, channel);
            MemorySegment data = header.dataLength() == 0 ? MemorySegment.NULL
                    : channel.map(FileChannel.MapMode.READ_ONLY, header.dataStart(), header.dataLength(), arena);
            Map<String, Tensor> tensors = new LinkedHashMap<>();
            try {
                for (TensorInfo info : header.tensors().values()) tensors.put(info.name(), load(data, info, backend, floating));
            } catch (RuntimeException | Error e) {
                // An allocation failure part way must not leave device memory held by half a model.
                for (Tensor t : tensors.values()) t.storage().release();
                throw e;
            }
            return new SafetensorsFile(tensors, header.metadata());
        } // unmapped here: the backend copied every tensor out of the mapping
    }

    private static Tensor load(MemorySegment data, TensorInfo info, Backend backend, DType floating) {
        MemorySegment bytes = data.asSlice(info.begin(), info.byteLength());
        Tensor loaded = Tensor.of(backend.upload(info.dtype(), bytes), info.shape());
        if (floating == null || !info.dtype().isFloating() || info.dtype() == floating) return loaded;
        Tensor converted = loaded.to(floating);
        loaded.storage().release();
        return converted;
    }
}
