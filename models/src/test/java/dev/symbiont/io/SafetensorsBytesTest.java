package dev.symbiont.io;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import static dev.symbiont.io.SafetensorsFixtures.concat;
import static dev.symbiont.io.SafetensorsFixtures.le;
import static dev.symbiont.io.SafetensorsFixtures.tensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The writer's bytes against the format spec, computed by hand. */
class SafetensorsBytesTest {
    @TempDir Path dir;

    @Test
    void aTinyFileMatchesTheSpecByteForByte() throws IOException {
        Path file = dir.resolve("tiny.safetensors");
        Safetensors.write(file, Map.of("w", tensor(DType.FLOAT32, new float[] {1.0f, -2.0f}, 2)), Map.of("format", "pt"));

        // 85 bytes of JSON, padded with 3 spaces to 88 so the data starts at file offset 96.
        String header = "{\"__metadata__\":{\"format\":\"pt\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}   ";
        assertEquals(88, header.length());
        byte[] expected = concat(
                new byte[] {88, 0, 0, 0, 0, 0, 0, 0},
                header.getBytes(StandardCharsets.US_ASCII),
                new byte[] {0, 0, (byte) 0x80, 0x3f, 0, 0, 0, (byte) 0xc0}); // 1.0f and -2.0f, little-endian
        assertArrayEquals(expected, Files.readAllBytes(file));
    }

    @Test
    void withoutMetadataTheHeaderHasNoMetadataKeyAndEveryDtypeGetsItsCode() throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("a", tensor(DType.FLOAT16, new short[] {0x3c00}));
        tensors.put("b", tensor(DType.BFLOAT16, new short[] {0x3f80}));
        tensors.put("c", tensor(DType.INT32, new int[] {-2}, 1));
        tensors.put("d", tensor(DType.INT64, new long[] {3}, 1, 1));
        Path file = dir.resolve("codes.safetensors");
        Safetensors.write(file, tensors, Map.of());
        byte[] bytes = Files.readAllBytes(file);
        String json = "{\"a\":{\"dtype\":\"F16\",\"shape\":[],\"data_offsets\":[0,2]},"
                + "\"b\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[2,4]},"
                + "\"c\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[4,8]},"
                + "\"d\":{\"dtype\":\"I64\",\"shape\":[1,1],\"data_offsets\":[8,16]}}";
        int padded = (json.length() + 7) / 8 * 8;
        assertArrayEquals(le(padded), Arrays.copyOfRange(bytes, 0, 8));
        assertEquals(json + " ".repeat(padded - json.length()),
                new String(bytes, 8, padded, StandardCharsets.UTF_8));
        assertArrayEquals(new byte[] {0x00, 0x3c, (byte) 0x80, 0x3f, (byte) 0xfe, -1, -1, -1, 3, 0, 0, 0, 0, 0, 0, 0},
                Arrays.copyOfRange(bytes, 8 + padded, bytes.length));
    }

    @Test
    void aHeaderThatIsAlreadyAMultipleOfEightGetsNoPadding() throws IOException {
        // {"x":{"dtype":"I32","shape":[],"data_offsets":[0,4]}} is 53 bytes; the name "wxyz" makes it 56.
        Path file = dir.resolve("aligned.safetensors");
        Safetensors.write(file, Map.of("wxyz", tensor(DType.INT32, new int[] {1})), Map.of());
        byte[] bytes = Files.readAllBytes(file);
        assertArrayEquals(le(56), Arrays.copyOfRange(bytes, 0, 8));
        assertEquals('}', (char) bytes[8 + 55]);
        assertEquals(8 + 56 + 4, bytes.length);
    }
}
