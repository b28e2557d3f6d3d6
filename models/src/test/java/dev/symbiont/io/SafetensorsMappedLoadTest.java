package dev.symbiont.io;

import dev.symbiont.core.DType;
import dev.symbiont.core.Half;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.offheap.OffHeapBackend;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.symbiont.io.SafetensorsFixtures.tensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Loading hands the backend each tensor's slice of the memory-mapped file (no Java array on the
 * way), works on a backend whose storages are not on the heap, and converts dtypes one tensor
 * at a time.
 */
class SafetensorsMappedLoadTest {
    @TempDir Path dir;

    /** A reference backend that records the host memory each upload reads. */
    static final class RecordingUploads extends ReferenceBackend {
        final List<MemorySegment> sources = new ArrayList<>();

        @Override
        public Storage upload(DType dtype, MemorySegment source) {
            sources.add(source);
            return super.upload(dtype, source);
        }
    }

    private static float[] ramp(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (i % 97) * 0.25f - 12; // exact in bfloat16 and float16
        return v;
    }

    private static short[] halves(float[] values, DType dtype) {
        short[] bits = new short[values.length];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = dtype == DType.BFLOAT16 ? Half.floatToBf16(values[i]) : Half.floatToF16(values[i]);
        }
        return bits;
    }

    /** w: bfloat16 (64, 64); ids: int64 (600); scale: float16 (2048); each at least 4 KiB, so the backend counts it. */
    private Path mixedCheckpoint() throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("w", tensor(DType.BFLOAT16, halves(ramp(4096), DType.BFLOAT16), 64, 64));
        long[] ids = new long[600];
        for (int i = 0; i < ids.length; i++) ids[i] = (long) i << 33;
        tensors.put("ids", tensor(DType.INT64, ids, 600));
        tensors.put("scale", tensor(DType.FLOAT16, halves(ramp(2048), DType.FLOAT16), 2048));
        Path file = dir.resolve("mixed.safetensors");
        Safetensors.write(file, tensors);
        return file;
    }

    @Test
    void everyTensorIsUploadedStraightFromItsSliceOfTheMappedFile() throws IOException {
        RecordingUploads backend = new RecordingUploads();
        SafetensorsFile loaded = Safetensors.read(mixedCheckpoint(), backend);
        assertEquals(3, backend.sources.size());
        long[] bytes = {4096 * 2, 600 * 8, 2048 * 2};
        for (int i = 0; i < 3; i++) {
            MemorySegment source = backend.sources.get(i);
            assertTrue(source.isMapped(), "upload " + i + " read " + source + ", not the mapped file");
            assertTrue(source.heapBase().isEmpty(), "upload " + i + " read a Java array");
            assertEquals(bytes[i], source.byteSize(), "upload " + i + " bytes");
        }
        assertArrayEquals(ramp(4096), loaded.tensors().get("w").toFloatArray());
        assertEquals(1L << 33, loaded.tensors().get("ids").toLongArray()[1]);
    }

    @Test
    void aHalfPrecisionCheckpointLoadsAsFloat32HoldingOneTensorsTemporaryAtATime() throws IOException {
        ReferenceBackend backend = new ReferenceBackend();
        Map<String, Tensor> loaded = Safetensors.read(mixedCheckpoint(), backend, DType.FLOAT32).tensors();
        assertEquals(DType.FLOAT32, loaded.get("w").dtype());
        assertEquals(DType.INT64, loaded.get("ids").dtype(), "integer tensors keep their dtype");
        assertEquals(DType.FLOAT32, loaded.get("scale").dtype());
        assertArrayEquals(ramp(4096), loaded.get("w").toFloatArray());
        assertArrayEquals(ramp(2048), loaded.get("scale").toFloatArray());
        long model = 4096 * 4 + 600 * 8 + 2048 * 4;
        assertEquals(model, backend.memory().allocatedBytes(), "the file-dtype buffers were released after conversion");
        // Each half-precision buffer lives only while its tensor is converted: the largest is w's 8 KiB.
        assertTrue(backend.memory().peakBytes() <= model + 4096 * 2, "peak " + backend.memory().peakBytes() + " for a model of " + model);
    }

    @Test
    void visitingTheTensorsHoldsOneAtATimeInTheOrderOfTheirData() throws IOException {
        ReferenceBackend backend = new ReferenceBackend();
        List<String> seen = new ArrayList<>();
        Safetensors.forEachTensor(mixedCheckpoint(), backend, DType.FLOAT32, (name, t) -> {
            seen.add(name + " " + t.dtype());
            if (name.equals("scale")) assertArrayEquals(ramp(2048), t.toFloatArray());
        });
        assertEquals(List.of("w float32", "ids int64", "scale float32"), seen);
        assertEquals(0, backend.memory().allocatedBytes(), "each tensor was released after its visit");
        // the most ever held: w widened (16 KiB) beside its bfloat16 upload (8 KiB)
        assertTrue(backend.memory().peakBytes() <= 4096 * 4 + 4096 * 2, "peak " + backend.memory().peakBytes());
    }

    @Test
    void convertingToAnIntegerDtypeIsRefused() throws IOException {
        Path file = mixedCheckpoint();
        var e = assertThrows(IllegalArgumentException.class, () -> Safetensors.read(file, new ReferenceBackend(), DType.INT32));
        assertTrue(e.getMessage().contains("int32") && e.getMessage().contains(file.toString()), e.getMessage());
    }

    @Test
    void aCheckpointLoadsOntoABackendWhoseStoragesAreNotOnTheHeap() throws IOException {
        OffHeapBackend backend = new OffHeapBackend();
        Path file = mixedCheckpoint();
        Map<String, Tensor> asIs = Safetensors.read(file, backend).tensors();
        assertSame(backend, asIs.get("w").backend());
        assertEquals(DType.BFLOAT16, asIs.get("w").dtype());
        assertArrayEquals(ramp(4096), asIs.get("w").toFloatArray());
        assertEquals(599L << 33, asIs.get("ids").toLongArray()[599]);
        Map<String, Tensor> widened = Safetensors.read(file, backend, DType.FLOAT32).tensors();
        assertEquals(DType.FLOAT32, widened.get("scale").dtype());
        assertArrayEquals(ramp(2048), widened.get("scale").toFloatArray());
        Path copy = dir.resolve("copy.safetensors");
        Safetensors.write(copy, asIs); // and back out of native memory
        assertArrayEquals(ramp(4096), Safetensors.read(copy, new ReferenceBackend()).tensors().get("w").toFloatArray());
    }
}
