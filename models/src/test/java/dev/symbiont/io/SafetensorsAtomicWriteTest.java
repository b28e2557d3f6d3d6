package dev.symbiont.io;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static dev.symbiont.io.SafetensorsFixtures.failingTensor;
import static dev.symbiont.io.SafetensorsFixtures.tensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A write that fails part way leaves the previous checkpoint as it was and no temporary file. */
class SafetensorsAtomicWriteTest {
    @TempDir Path dir;

    private List<Path> filesIn() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }

    private Path previousCheckpoint() throws IOException {
        Path file = dir.resolve("model.safetensors");
        Safetensors.write(file, Map.of("old", tensor(DType.FLOAT32, new float[] {1, 2, 3})), Map.of("v", "1"));
        return file;
    }

    @Test
    void aTensorWhoseDownloadFailsMidFileLeavesThePreviousFileByteIdentical() throws IOException {
        Path file = previousCheckpoint();
        byte[] before = Files.readAllBytes(file);
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        // A large first tensor, so the header and real data have gone to the temporary file already.
        tensors.put("written", tensor(DType.FLOAT32, new float[100_000], 100_000));
        tensors.put("broken", failingTensor(4));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Safetensors.write(file, tensors, Map.of()));
        assertEquals("device lost while downloading", e.getMessage());
        assertArrayEquals(before, Files.readAllBytes(file));
        assertEquals(List.of(file), filesIn(), "no temporary file is left behind");
        assertEquals(List.of("old"), List.copyOf(Safetensors.read(file).tensors().keySet()));
    }

    @Test
    void aFailedFirstWriteLeavesNoFileAtAll() throws IOException {
        Path file = dir.resolve("new.safetensors");
        assertThrows(IllegalStateException.class, () -> Safetensors.write(file, Map.of("broken", failingTensor(4)), Map.of()));
        assertFalse(Files.exists(file));
        assertEquals(List.of(), filesIn());
    }

    @Test
    void badArgumentsAreRejectedBeforeTheDiskIsTouched() throws IOException {
        Path file = previousCheckpoint();
        byte[] before = Files.readAllBytes(file);
        Tensor x = tensor(DType.FLOAT32, new float[] {1});

        IllegalArgumentException reserved = assertThrows(IllegalArgumentException.class,
                () -> Safetensors.write(file, Map.of("__metadata__", x), Map.of()));
        assertTrue(reserved.getMessage().contains("\"__metadata__\" is reserved"), reserved.getMessage());

        Map<String, Tensor> nullName = new HashMap<>();
        nullName.put(null, x);
        assertThrows(IllegalArgumentException.class, () -> Safetensors.write(file, nullName, Map.of()));

        Map<String, Tensor> nullTensor = new HashMap<>();
        nullTensor.put("w", null);
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class, () -> Safetensors.write(file, nullTensor, Map.of()));
        assertTrue(missing.getMessage().contains("tensor \"w\" is null"), missing.getMessage());

        Map<String, String> nullValue = new HashMap<>();
        nullValue.put("k", null);
        assertThrows(IllegalArgumentException.class, () -> Safetensors.write(file, Map.of("x", x), nullValue));

        assertArrayEquals(before, Files.readAllBytes(file));
        assertEquals(List.of(file), filesIn());
    }

    @Test
    void aSuccessfulWriteReplacesThePreviousFile() throws IOException {
        Path file = previousCheckpoint();
        Safetensors.write(file, Map.of("new", tensor(DType.INT32, new int[] {42}, 1)), Map.of());
        SafetensorsFile read = Safetensors.read(file);
        assertEquals(List.of("new"), List.copyOf(read.tensors().keySet()));
        assertEquals(Map.of(), read.metadata());
        assertEquals(List.of(file), filesIn());
    }
}
