package dev.symbiont.io;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.symbiont.io.SafetensorsFixtures.backend;
import static dev.symbiont.io.SafetensorsFixtures.raw;
import static dev.symbiont.io.SafetensorsFixtures.tensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

class SafetensorsRoundTripTest {
    @TempDir Path dir;

    private SafetensorsFile roundTrip(Map<String, Tensor> tensors, Map<String, String> metadata) throws IOException {
        Path file = dir.resolve("t.safetensors");
        Safetensors.write(file, tensors, metadata);
        return Safetensors.read(file);
    }

    private static Object host(Tensor t) {
        return t.backend().download(t.storage(), t.layout());
    }

    private static int[] rawBits(float[] values) {
        int[] bits = new int[values.length];
        for (int i = 0; i < values.length; i++) bits[i] = Float.floatToRawIntBits(values[i]);
        return bits;
    }

    @Test
    void float32BitPatternsIncludingNanPayloadsInfinitiesAndNegativeZeroSurviveExactly() throws IOException {
        int[] bits = {0x7fc00000, 0x7fc00001, 0x7f800001, 0xffc12345, 0xffbfffff, 0x7f800000, 0xff800000,
                0x80000000, 0x00000000, 0x00000001, 0x807fffff, 0x7f7fffff, 0x3f800000, 0xbf800000};
        float[] values = new float[bits.length];
        for (int i = 0; i < bits.length; i++) values[i] = Float.intBitsToFloat(bits[i]);
        SafetensorsFile read = roundTrip(Map.of("x", tensor(DType.FLOAT32, values, 2, 7)), Map.of());
        Tensor x = read.tensors().get("x");
        assertEquals(DType.FLOAT32, x.dtype());
        assertArrayEquals(new int[] {2, 7}, x.shape());
        assertArrayEquals(bits, rawBits((float[]) host(x)));
    }

    @Test
    void halfPrecisionRawBitsSurviveExactlyForBothBf16AndF16() throws IOException {
        short[] bits = {0x0000, (short) 0x8000, 0x0001, 0x7f80, (short) 0xff80, 0x7fc1, (short) 0xffff, 0x3f80, 0x7c00, 0x7e01, 0x1234, (short) 0xabcd};
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("bf", tensor(DType.BFLOAT16, bits, 3, 4));
        tensors.put("f16", tensor(DType.FLOAT16, bits, 12));
        SafetensorsFile read = roundTrip(tensors, Map.of());
        assertEquals(DType.BFLOAT16, read.tensors().get("bf").dtype());
        assertEquals(DType.FLOAT16, read.tensors().get("f16").dtype());
        assertArrayEquals(bits, (short[]) host(read.tensors().get("bf")));
        assertArrayEquals(bits, (short[]) host(read.tensors().get("f16")));
    }

    @Test
    void halfTensorsMadeByCastingReadBackAsTheSameBits() throws IOException {
        Tensor bf = Tensor.fromArray(new float[] {1.5f, -3.25f, 1e-3f, 65504f}).to(DType.BFLOAT16);
        SafetensorsFile read = roundTrip(Map.of("bf", bf), Map.of());
        assertArrayEquals((short[]) host(bf), (short[]) host(read.tensors().get("bf")));
    }

    @Test
    void integerExtremesSurviveExactly() throws IOException {
        int[] ints = {Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE};
        long[] longs = {Long.MIN_VALUE, -1L, 0L, 1L << 40, Long.MAX_VALUE};
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("i32", tensor(DType.INT32, ints, 5));
        tensors.put("i64", tensor(DType.INT64, longs, 5, 1));
        SafetensorsFile read = roundTrip(tensors, Map.of());
        assertArrayEquals(ints, (int[]) host(read.tensors().get("i32")));
        assertArrayEquals(longs, (long[]) host(read.tensors().get("i64")));
        assertArrayEquals(new int[] {5, 1}, read.tensors().get("i64").shape());
    }

    @Test
    void scalarsKeepAnEmptyShape() throws IOException {
        Path file = dir.resolve("s.safetensors");
        Safetensors.write(file, Map.of("s", tensor(DType.FLOAT32, new float[] {2.5f})), Map.of());
        assertEquals(0, Safetensors.header(file).tensors().get("s").shape().length);
        Tensor s = Safetensors.read(file).tensors().get("s");
        assertEquals(0, s.dim());
        assertEquals(2.5f, s.item());
    }

    @Test
    void emptyTensorsWithAZeroDimKeepTheirShapeAndTakeNoBytes() throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("before", tensor(DType.INT32, new int[] {7}, 1));
        tensors.put("empty", tensor(DType.FLOAT32, new float[0], 2, 0, 3));
        tensors.put("after", tensor(DType.INT32, new int[] {9}, 1));
        Path file = dir.resolve("e.safetensors");
        Safetensors.write(file, tensors, Map.of());
        TensorInfo info = Safetensors.header(file).tensors().get("empty");
        assertEquals(4, info.begin());
        assertEquals(4, info.end());
        SafetensorsFile read = Safetensors.read(file);
        assertArrayEquals(new int[] {2, 0, 3}, read.tensors().get("empty").shape());
        assertArrayEquals(new int[] {9}, (int[]) host(read.tensors().get("after")));
    }

    @Test
    void aFileOfOnlyEmptyTensorsHasNoDataSectionAndStillReads() throws IOException {
        SafetensorsFile read = roundTrip(Map.of("e", tensor(DType.INT64, new long[0], 0)), Map.of());
        assertArrayEquals(new int[] {0}, read.tensors().get("e").shape());
    }

    @Test
    void metadataRoundTripsIncludingQuotesEscapesAndUnicode() throws IOException {
        Map<String, String> metadata = new LinkedHashMap<>();
        metadata.put("format", "pt");
        metadata.put("note", "quote \" backslash \\ newline \n tab \t");
        metadata.put("ünïcødé 🚀", "値");
        metadata.put("empty", "");
        SafetensorsFile read = roundTrip(Map.of("x", tensor(DType.FLOAT32, new float[] {1})), metadata);
        assertEquals(metadata, read.metadata());
        assertEquals(List.copyOf(metadata.keySet()), List.copyOf(read.metadata().keySet()));
    }

    @Test
    void tensorOrderOfTheMapIsKeptInTheHeaderAndOnRead() throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        for (String name : List.of("z.weight", "a.bias", "m", "b.0.w", "\u00e9")) {
            tensors.put(name, tensor(DType.FLOAT32, new float[] {name.length()}));
        }
        Path file = dir.resolve("o.safetensors");
        Safetensors.write(file, tensors, Map.of());
        assertEquals(List.copyOf(tensors.keySet()), List.copyOf(Safetensors.header(file).tensors().keySet()));
        SafetensorsFile read = Safetensors.read(file);
        assertEquals(List.copyOf(tensors.keySet()), List.copyOf(read.tensors().keySet()));
        assertEquals(8f, read.tensors().get("z.weight").item());
    }

    @Test
    void aTransposedViewIsWrittenAsItsRowMajorElements() throws IOException {
        Tensor x = tensor(DType.FLOAT32, new float[] {1, 2, 3, 4, 5, 6}, 2, 3).t();
        Tensor back = roundTrip(Map.of("t", x), Map.of()).tensors().get("t");
        assertArrayEquals(new int[] {3, 2}, back.shape());
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, (float[]) host(back));
    }

    @Test
    void readingOntoAGivenBackendPutsEveryTensorThere() throws IOException {
        Path file = dir.resolve("b.safetensors");
        Safetensors.write(file, Map.of("x", tensor(DType.FLOAT32, new float[] {1, 2}, 2)), Map.of());
        Backend reference = Backends.get("reference");
        Tensor x = Safetensors.read(file, reference).tensors().get("x");
        assertSame(reference, x.backend());
        assertArrayEquals(new float[] {1, 2}, (float[]) host(x));
    }

    @Test
    void headerGivesNamesDtypesShapesAndOffsetsWithoutLoadingData() throws IOException {
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        tensors.put("w", tensor(DType.FLOAT32, new float[6], 2, 3));
        tensors.put("ids", tensor(DType.INT64, new long[2], 2));
        tensors.put("h", tensor(DType.BFLOAT16, new short[3], 3));
        Path file = dir.resolve("h.safetensors");
        Safetensors.write(file, tensors, Map.of("k", "v"));
        SafetensorsHeader header = Safetensors.header(file);
        assertEquals(new TensorInfo("w", DType.FLOAT32, new int[] {2, 3}, 0, 24), header.tensors().get("w"));
        assertEquals(new TensorInfo("ids", DType.INT64, new int[] {2}, 24, 40), header.tensors().get("ids"));
        assertEquals(new TensorInfo("h", DType.BFLOAT16, new int[] {3}, 40, 46), header.tensors().get("h"));
        assertEquals(Map.of("k", "v"), header.metadata());
        assertEquals(46, header.dataLength());
        assertEquals(0, header.dataStart() % 8, "the data section starts 8-byte aligned");
    }

    @Test
    void entriesWhoseDataIsStoredInAnotherOrderAndUnalignedStillReadInHeaderOrder() throws IOException {
        // Another writer may order data differently from the header and may not pad the header.
        String header = "{\"b\":{\"dtype\":\"I64\",\"shape\":[1],\"data_offsets\":[2,10]},"
                + "\"a\":{\"dtype\":\"BF16\",\"shape\":[],\"data_offsets\":[0,2]}}";
        assertEquals(4, header.getBytes(StandardCharsets.UTF_8).length % 8, "the data section starts unaligned");
        byte[] data = {0x34, 0x12, 1, 0, 0, 0, 0, 0, 0, (byte) 0x80};
        SafetensorsFile read = Safetensors.read(raw(dir, header, data), backend());
        assertEquals(List.of("b", "a"), List.copyOf(read.tensors().keySet()));
        assertArrayEquals(new long[] {Long.MIN_VALUE + 1}, (long[]) host(read.tensors().get("b")));
        assertArrayEquals(new short[] {0x1234}, (short[]) host(read.tensors().get("a")));
    }
}
