package dev.symbiont.io;

import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.symbiont.io.SafetensorsFixtures.backend;
import static dev.symbiont.io.SafetensorsFixtures.concat;
import static dev.symbiont.io.SafetensorsFixtures.limitedUploads;
import static dev.symbiont.io.SafetensorsFixtures.raw;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every malformed file is rejected with a SafetensorsFormatException naming the file, the tensor
 * and the offsets, before any tensor is allocated: {@link #rejected} reads through a backend
 * whose every upload fails, so an allocation would show up as the wrong error.
 */
class SafetensorsValidationTest {
    @TempDir Path dir;

    private static String entry(String name, String dtype, String shape, long begin, long end) {
        return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":[" + begin + "," + end + "]}";
    }

    private static String header(String... entries) {
        return "{" + String.join(",", entries) + "}";
    }

    /** The message of the exception both read and header throw for {@code file}, minus the file prefix. */
    private String rejected(Path file) {
        AtomicInteger uploads = new AtomicInteger();
        SafetensorsFormatException e = assertThrows(SafetensorsFormatException.class,
                () -> Safetensors.read(file, limitedUploads(backend(), 0, uploads)));
        assertEquals(0, uploads.get(), "nothing may be allocated for a bad file");
        SafetensorsFormatException h = assertThrows(SafetensorsFormatException.class, () -> Safetensors.header(file));
        assertEquals(e.getMessage(), h.getMessage());
        assertEquals(file, e.file());
        String prefix = file + ": ";
        assertTrue(e.getMessage().startsWith(prefix), e.getMessage());
        return e.getMessage().substring(prefix.length());
    }

    private String rejected(String header, int dataBytes) throws IOException {
        return rejected(raw(dir, header, new byte[dataBytes]));
    }

    private static void assertContains(String message, String... parts) {
        for (String part : parts) assertTrue(message.contains(part), "expected \"" + part + "\" in: " + message);
    }

    // ---- the length prefix ------------------------------------------------------------------

    @Test
    void aFileShorterThanTheLengthPrefixIsRejected() throws IOException {
        Path file = dir.resolve("short.safetensors");
        Files.write(file, new byte[] {1, 2, 3, 4, 5});
        assertEquals("file is 5 bytes, too short for the 8-byte header length at file offset 0", rejected(file));
    }

    @Test
    void aHeaderLengthOfTwoToTheSixtySecondIsRejectedWithoutAllocating() throws IOException {
        String message = rejected(raw(dir, 1L << 62, "{}".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("header length 4611686018427387904 (file offsets 0-7) is over the 100000000-byte limit", message);
    }

    @Test
    void aHeaderLengthWithTheTopBitSetIsReadAsUnsigned() throws IOException {
        assertContains(rejected(raw(dir, -1L, new byte[16])), "header length 18446744073709551615", "100000000-byte limit");
    }

    @Test
    void aHeaderLengthPastTheEndOfTheFileIsRejected() throws IOException {
        assertEquals("header length 1000 (file offsets 0-7) runs past the end of the file: the header would end"
                + " at file offset 1008 but the file is 10 bytes", rejected(raw(dir, 1000, "{}".getBytes(StandardCharsets.US_ASCII))));
    }

    // ---- the JSON as a whole ------------------------------------------------------------------

    @Test
    void aHeaderThatIsNotUtf8NamesTheBadByte() throws IOException {
        byte[] json = concat("{\"a".getBytes(StandardCharsets.US_ASCII), new byte[] {(byte) 0xff},
                "\":1}".getBytes(StandardCharsets.US_ASCII));
        assertEquals("header is not valid UTF-8 at file offset 11", rejected(raw(dir, json.length, json)));
    }

    @Test
    void aHeaderThatIsNotJsonIsRejectedWithItsOffset() throws IOException {
        assertContains(rejected("{\"a\": }", 0), "tensor \"a\" entry is not valid JSON at file offset 14");
        assertContains(rejected("{\"w\":{\"dtype\":\"F32\"", 0), "tensor \"w\"", "not valid JSON at file offset");
        assertContains(rejected("{,}", 0), "header is not valid JSON at file offset 9");
    }

    @Test
    void aHeaderThatIsNotAnObjectIsRejected() throws IOException {
        assertEquals("header at file offset 8 is a JSON array, not an object", rejected("[1,2]", 0));
        assertEquals("header at file offset 8 is a JSON string, not an object", rejected("\"x\"", 0));
    }

    @Test
    void aBlankHeaderIsRejected() throws IOException {
        assertEquals("header (file bytes [8, 16)) is blank, expected a JSON object", rejected("        ", 0));
    }

    @Test
    void contentAfterTheClosingBraceIsRejected() throws IOException {
        assertEquals("header has content after its closing brace, at file offset 10", rejected("{}{}", 0));
    }

    // ---- one entry ------------------------------------------------------------------------------

    @Test
    void anEntryMissingAFieldNamesTheTensorAndTheField() throws IOException {
        assertEquals("tensor \"w\" (header entry at file offset 9): missing \"dtype\"",
                rejected("{\"w\":{\"shape\":[1],\"data_offsets\":[0,4]}}", 4));
        assertEquals("tensor \"w\" (header entry at file offset 9): missing \"shape\"",
                rejected("{\"w\":{\"dtype\":\"F32\",\"data_offsets\":[0,4]}}", 4));
        assertEquals("tensor \"w\" (header entry at file offset 9): missing \"data_offsets\"",
                rejected("{\"w\":{\"dtype\":\"F32\",\"shape\":[1]}}", 4));
    }

    @Test
    void fieldsOfTheWrongJsonTypeAreRejected() throws IOException {
        assertEquals("tensor \"w\" (header entry at file offset 9) is 5, expected an object with dtype, shape and data_offsets",
                rejected("{\"w\":5}", 0));
        assertEquals("tensor \"w\" (header entry at file offset 9): \"dtype\" must be a string, got 4",
                rejected("{\"w\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", 4));
        assertEquals("tensor \"w\" (header entry at file offset 9): \"shape\" must be an array of integers, got \"abc\"",
                rejected(header(entry("w", "F32", "\"abc\"", 0, 4)), 4));
        assertEquals("tensor \"w\" (header entry at file offset 9): shape [2.5] has 2.5 at position 0, not an integer",
                rejected(header(entry("w", "F32", "[2.5]", 0, 4)), 4));
        assertEquals("tensor \"w\" (header entry at file offset 9): \"data_offsets\" must be an array [begin, end], got [0]",
                rejected("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0]}}", 4));
        assertEquals("tensor \"w\" (header entry at file offset 9): data_offsets [\"0\", 4] must hold two integers from 0 to 2^63 - 1",
                rejected("{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[\"0\",4]}}", 4));
        assertContains(rejected(header(entry("w", "F32", "[1]", -4, 0)), 4), "tensor \"w\"", "data_offsets [-4, 0] must hold two integers");
    }

    @Test
    void anUnknownDtypeIsRejectedListingTheSupportedOnes() throws IOException {
        assertEquals("tensor \"w\" (header entry at file offset 9): dtype \"F64\" is not one Symbiont reads (F32, F16, BF16, I32, I64)",
                rejected(header(entry("w", "F64", "[1]", 0, 8)), 8));
    }

    @Test
    void aNegativeDimensionIsRejected() throws IOException {
        assertEquals("tensor \"w\" (header entry at file offset 9): shape [2, -1] has a negative dimension",
                rejected(header(entry("w", "F32", "[2,-1]", 0, 0)), 0));
    }

    @Test
    void dimensionsAndElementCountsPastAnIntAreRejectedBeforeAnyArithmeticOverflows() throws IOException {
        assertEquals("tensor \"w\" (header entry at file offset 9): shape [3000000000] has dimension 3000000000, past Symbiont's limit of 2^31 - 1",
                rejected(header(entry("w", "F32", "[3000000000]", 0, 4)), 4));
        assertEquals("tensor \"w\" (header entry at file offset 9): shape [65536, 65536] holds more than 2^31 - 1 elements, Symbiont's limit for one tensor",
                rejected(header(entry("w", "F32", "[65536,65536]", 0, 4)), 4));
        // Zero elements, but the strides of the non-zero dims would still overflow an int.
        assertContains(rejected(header(entry("w", "F32", "[1048576,1048576,0]", 0, 0)), 0), "holds more than 2^31 - 1 elements");
        // numel × 8 would wrap a long if computed naively: 2^31 - 1 fits, its bytes are checked in long.
        assertContains(rejected(header(entry("w", "I64", "[2147483647]", 0, 8)), 8), "needs 17179869176");
        assertContains(rejected(header(entry("w", "F32", "[99999999999999999999999]", 0, 4)), 4), "past Symbiont's limit");
    }

    @Test
    void dataOffsetsWithBeginAfterEndAreRejected() throws IOException {
        assertContains(rejected(header(entry("w", "F32", "[1]", 8, 4)), 8),
                "tensor \"w\" data_offsets [8, 4] begin after end (file offsets");
    }

    @Test
    void dataOffsetsPastTheDataSectionNameTheTensorAndTheFileOffsets() throws IOException {
        String json = header(entry("blocks.0.w", "F32", "[1024]", 0, 4096));
        String padded = json + " ".repeat(80 - json.length()); // data section starts at file offset 88
        assertEquals("tensor \"blocks.0.w\" data_offsets [0, 4096] end past the data section (2048 bytes, ends at file offset 2136)",
                rejected(padded, 2048));
        assertContains(rejected(header(entry("w", "F32", "[1]", 0, 99999999999999999L)), 4), "end past the data section");
    }

    @Test
    void aByteLengthThatDisagreesWithShapeAndDtypeIsRejected() throws IOException {
        String json = header(entry("w", "F32", "[2,3]", 0, 12));
        long dataStart = 8 + json.length();
        assertEquals("tensor \"w\" data_offsets [0, 12] (file bytes [" + dataStart + ", " + (dataStart + 12)
                + ")) hold 12 bytes, but shape [2, 3] of F32 needs 24", rejected(json, 12));
    }

    @Test
    void duplicateFieldsInsideAnEntryAreRejected() throws IOException {
        assertContains(rejected("{\"w\":{\"dtype\":\"F32\",\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4),
                "tensor \"w\" entry is not valid JSON at file offset", "dtype");
    }

    // ---- entries together -------------------------------------------------------------------

    @Test
    void overlappingRangesAreRejectedNamingBothTensors() throws IOException {
        String json = header(entry("a", "F32", "[4]", 0, 16), entry("b", "F32", "[4]", 8, 24));
        long s = 8 + json.length();
        assertEquals("tensor \"b\" data_offsets [8, 24] overlaps tensor \"a\" data_offsets [0, 16] (file bytes ["
                + (s + 8) + ", " + (s + 24) + ") start inside [" + s + ", " + (s + 16) + "))", rejected(json, 24));
    }

    @Test
    void twoTensorsSharingTheSameBytesAreRejected() throws IOException {
        assertContains(rejected(header(entry("a", "F32", "[1]", 0, 4), entry("b", "I32", "[1]", 0, 4)), 4),
                "tensor \"b\" data_offsets [0, 4] overlaps tensor \"a\"");
    }

    @Test
    void aGapBetweenTensorsIsRejected() throws IOException {
        String json = header(entry("a", "F32", "[1]", 0, 4), entry("b", "F32", "[1]", 8, 12));
        long s = 8 + json.length();
        assertEquals("tensor \"b\" data_offsets [8, 12] leave a gap: data bytes [4, 8) (file bytes [" + (s + 4) + ", " + (s + 8)
                + ")) belong to no tensor, after tensor \"a\"", rejected(json, 12));
    }

    @Test
    void aGapBeforeTheFirstTensorIsRejected() throws IOException {
        assertContains(rejected(header(entry("a", "F32", "[1]", 4, 8)), 8),
                "tensor \"a\" data_offsets [4, 8] leave a gap: data bytes [0, 4)");
    }

    @Test
    void bytesAfterTheLastTensorAreRejected() throws IOException {
        String json = header(entry("a", "F32", "[1]", 0, 4));
        long s = 8 + json.length();
        assertEquals("data bytes [4, 8) (file bytes [" + (s + 4) + ", " + (s + 8)
                + ")) belong to no tensor: the data section ends after tensor \"a\"", rejected(json, 8));
        assertContains(rejected("{}", 3), "data bytes [0, 3)", "belong to no tensor");
    }

    @Test
    void metadataValuesThatAreNotStringsAreRejected() throws IOException {
        assertEquals("__metadata__ (at file offset 9): the value for key \"epoch\" is 3, not a string",
                rejected("{\"__metadata__\":{\"epoch\":3}}", 0));
        assertEquals("__metadata__ (at file offset 9) is [\"a\"], expected an object of strings",
                rejected("{\"__metadata__\":[\"a\"]}", 0));
    }

    @Test
    void metadataWithARepeatedKeyOrGivenTwiceIsRejected() throws IOException {
        assertContains(rejected("{\"__metadata__\":{\"a\":\"b\",\"a\":\"c\"}}", 0),
                "__metadata__ entry is not valid JSON at file offset", "Duplicate field 'a'");
        assertEquals("__metadata__ appears twice in the header (at file offsets 9 and 27)",
                rejected("{\"__metadata__\":{},\"__metadata__\":{}}", 0));
    }

    @Test
    void aDuplicateTensorNameIsRejectedWithBothOffsets() throws IOException {
        String first = entry("w", "F32", "[1]", 0, 4);
        String json = header(first, entry("w", "F32", "[1]", 0, 4));
        assertEquals("tensor \"w\" appears twice in the header (at file offsets 9 and " + (8 + 2 + first.length()) + ")",
                rejected(json, 4));
    }

    @Test
    void offsetsPastTwoGibibytesAreValidatedInLongArithmetic() throws IOException {
        // A sparse 3 GiB file of two 1.5 GiB int64 tensors; the second ends past 2^31.
        long half = 201326592L * 8;
        String json = header(entry("a", "I64", "[201326592]", 0, half), entry("b", "I64", "[201326592]", half, 2 * half));
        Path file = raw(dir, json, new byte[0]);
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(f.length() + 2 * half);
        }
        SafetensorsHeader h = Safetensors.header(file);
        assertEquals(3221225472L, h.dataLength());
        assertEquals(new TensorInfo("b", dev.symbiont.core.DType.INT64, new int[] {201326592}, 1610612736L, 3221225472L),
                h.tensors().get("b"));
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.setLength(f.length() - 1);
        }
        assertContains(rejected(file), "tensor \"b\" data_offsets [1610612736, 3221225472] end past the data section (3221225471 bytes");
    }

    // ---- no partial loads -------------------------------------------------------------------

    @Test
    void aFileWhoseLastEntryIsBadLoadsNothing() throws IOException {
        // The first tensor alone is fine; the check must still run over the whole header first.
        Path file = raw(dir, header(entry("good", "F32", "[1024]", 0, 4096), entry("bad", "F32", "[2]", 4096, 4100)),
                new byte[4100]);
        assertContains(rejected(file), "tensor \"bad\"", "needs 8");
    }

    @Test
    void anAllocationFailurePartWayReleasesTheTensorsAlreadyLoaded() throws IOException {
        ReferenceBackend inner = new ReferenceBackend();
        Path file = raw(dir, header(entry("a", "F32", "[2048]", 0, 8192), entry("b", "F32", "[2048]", 8192, 16384)),
                new byte[16384]);
        AtomicInteger uploads = new AtomicInteger();
        assertThrows(OutOfMemoryError.class, () -> Safetensors.read(file, limitedUploads(inner, 1, uploads)));
        assertEquals(2, uploads.get());
        assertEquals(8192, inner.memory().peakBytes(), "the first tensor was allocated");
        assertEquals(0, inner.memory().allocatedBytes(), "and released when the second failed");
    }

    @Test
    void aValidFileStillReadsAfterAllThoseChecks() throws IOException {
        String json = header(entry("a", "F32", "[1]", 0, 4), entry("e", "I64", "[0,5]", 4, 4), entry("b", "I32", "[]", 4, 8));
        SafetensorsFile read = Safetensors.read(raw(dir, json, new byte[] {0, 0, (byte) 0x80, 0x3f, 7, 0, 0, 0}), backend());
        assertEquals(1.0f, read.tensors().get("a").item());
        assertEquals(7L, read.tensors().get("b").toLongArray()[0]);
    }
}
