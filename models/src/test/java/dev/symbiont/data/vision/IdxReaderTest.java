package dev.symbiont.data.vision;

import dev.symbiont.fuzz.Allocation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IdxReaderTest {
    @TempDir Path dir;

    /** (3, 2, 4) bytes 0, 7, 14, ... wrapping past 255. */
    static IdxArray sample() {
        byte[] data = new byte[24];
        for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 7 + 250);
        return new IdxArray(new int[] {3, 2, 4}, data);
    }

    static byte[] raw(IdxArray array) throws IOException {
        var out = new ByteArrayOutputStream();
        IdxWriter.write(out, array);
        return out.toByteArray();
    }

    static byte[] gzip(byte[] bytes) throws IOException {
        var out = new ByteArrayOutputStream();
        try (var z = new GZIPOutputStream(out)) {
            z.write(bytes);
        }
        return out.toByteArray();
    }

    private Path file(String name, byte[] bytes) throws IOException {
        return Files.write(dir.resolve(name), bytes);
    }

    private static void failsMentioning(Path file, long offset, String... fragments) {
        IdxFormatException e = assertThrows(IdxFormatException.class, () -> IdxReader.read(file));
        assertEquals(offset, e.offset(), e.getMessage());
        assertEquals(file.toString(), e.source());
        assertTrue(e.getMessage().startsWith(file + ": at byte " + offset), e.getMessage());
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' should mention " + f);
    }

    @ParameterizedTest
    @ValueSource(strings = {"x.idx", "x.idx.gz"})
    void whatTheWriterWritesTheReaderReadsBack(String name) throws IOException {
        Path file = dir.resolve(name);
        IdxWriter.write(file, sample());
        assertEquals(sample(), IdxReader.read(file));
        assertEquals(sample(), IdxReader.read("stream", new ByteArrayInputStream(Files.readAllBytes(file))));
        byte[] bytes = Files.readAllBytes(file);
        assertEquals(name.endsWith(".gz"), (bytes[0] & 0xFF) == 0x1f && (bytes[1] & 0xFF) == 0x8b);
    }

    @Test
    void theLayoutIsTheMnistOneByteForByte() throws IOException {
        byte[] bytes = raw(sample());
        assertArrayEquals(new byte[] {0, 0, 8, 3, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 4}, Arrays.copyOf(bytes, 16));
        assertEquals(16 + 24, bytes.length);
        assertEquals((byte) 250, bytes[16]);
        assertEquals(250, IdxReader.read(file("a", bytes)).data()[0] & 0xFF);
    }

    @Test
    void gzipIsRecognisedByItsMagicNotItsName() throws IOException {
        assertEquals(sample(), IdxReader.read(file("compressed-without-suffix", gzip(raw(sample())))));
        assertEquals(sample(), IdxReader.read(file("raw.gz", raw(sample()))));
    }

    @Test
    void aTruncatedFileNamesWhereItEndsAndWhatTheHeaderNeeds() throws IOException {
        byte[] bytes = raw(sample());
        failsMentioning(file("cut.idx", Arrays.copyOf(bytes, 30)), 30, "[3, 2, 4]", "need 24 data bytes", "40 bytes in all", "has 30 bytes");
        failsMentioning(file("cut.idx.gz", gzip(Arrays.copyOf(bytes, 30))), 30, "of the decompressed data", "truncated",
                "need 24 data bytes", "up to byte 40", "ends after 14");
        failsMentioning(file("header.idx", Arrays.copyOf(bytes, 9)), 9, "ends inside the header", "3 dimension sizes");
        failsMentioning(file("empty.idx", new byte[0]), 0, "ends inside the header", "magic number");
    }

    @Test
    void extraBytesAfterTheDataAreRejected() throws IOException {
        byte[] longer = Arrays.copyOf(raw(sample()), 41);
        failsMentioning(file("long.idx", longer), 40, "has 41 bytes", "40 bytes in all");
        failsMentioning(file("long.idx.gz", gzip(longer)), 40, "trailing bytes", "expected the file to end here");
    }

    @Test
    void aWrongMagicNumberOrTypeIsNamed() throws IOException {
        byte[] bytes = raw(sample());
        bytes[1] = 1;
        failsMentioning(file("magic.idx", bytes), 0, "magic number 0x00010803", "0x00 0x00");
        bytes = raw(sample());
        bytes[2] = 0x0D;
        failsMentioning(file("float.idx", bytes), 2, "data type 0x0D (float32) is not supported", "expected 0x08 (unsigned byte)");
        bytes[2] = 0x42;
        failsMentioning(file("unknown.idx", bytes), 2, "data type 0x42 (not an IDX type)");
    }

    @Test
    void dimensionCountsOutsideOneToEightAreRejected() throws IOException {
        byte[] bytes = raw(sample());
        bytes[3] = 0;
        failsMentioning(file("zero.idx", bytes), 3, "expected 1 to 8 dimensions, the header says 0");
        bytes[3] = (byte) 200;
        failsMentioning(file("many.idx", bytes), 3, "the header says 200");
    }

    @Test
    void dimensionsTooLargeForAnArrayAreRejectedBeforeAnythingIsAllocated() throws Exception {
        // 65536 x 65536 x 2: overflows an int, fits a long; 0xFFFFFFFF alone exceeds an array.
        byte[] product = {0, 0, 8, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2};
        byte[] single = {0, 0, 8, 1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        failsMentioning(file("product.idx", product), 4, "dimensions [65536, 65536]...", "more than the 2147483639 elements");
        failsMentioning(file("single.idx", single), 4, "dimension 0 is 4294967295");
        // Within an array but far beyond the file: refused from the length (raw) or as data arrives (gzip).
        byte[] big = {0, 0, 8, 1, 0x04, 0, 0, 0, 1, 2, 3}; // 64 MiB: within the data limit
        Path rawFile = file("big.idx", big), gzFile = file("big.idx.gz", gzip(big));
        long allocated = Allocation.of(() -> assertThrows(IdxFormatException.class, () -> IdxReader.read(rawFile)));
        assertTrue(allocated < 4 << 20, "allocated " + allocated);
        allocated = Allocation.of(() -> assertThrows(IdxFormatException.class, () -> IdxReader.read(gzFile)));
        assertTrue(allocated < 4 << 20, "allocated " + allocated);
        failsMentioning(gzFile, 11, "truncated", "need 67108864 data bytes", "ends after 3");
    }

    @Test
    void aGzipStreamShortOfItsHeaderCostsAtMostTwiceTheDataItHolds() throws Exception {
        int data = 4 << 20;
        byte[] bytes = Arrays.copyOf(new byte[] {0, 0, 8, 1, 0, 0x40, 0, 1}, 8 + data); // declares 4 MiB + 1
        Path file = file("short.idx.gz", gzip(bytes));
        assertTrue(Files.size(file) < data / 100, "zeros compress well: " + Files.size(file));
        long allocated = Allocation.of(() -> failsMentioning(file, 8 + data, "truncated", "need 4194305 data bytes"));
        assertTrue(allocated < 2 * data + (1 << 20), "allocated " + allocated + " for " + data + " bytes of data");
        // One byte fewer declared: it loads, and the pieces are joined in order.
        bytes[7] = 0;
        for (int i = 8; i < bytes.length; i += 4099) bytes[i] = (byte) (i / 4099);
        IdxArray read = IdxReader.read(file("exact.idx.gz", gzip(bytes)));
        assertArrayEquals(Arrays.copyOfRange(bytes, 8, bytes.length), read.data());
    }

    @Test
    void corruptGzipIsAFormatErrorNotAnIoFailure() throws IOException {
        byte[] z = gzip(raw(sample()));
        byte[] crc = z.clone();
        crc[z.length - 6] ^= 1; // the CRC-32 in the trailer
        failsMentioning(file("crc.idx.gz", crc), 40, "corrupt gzip data", "CRC-32 mismatch");
        failsMentioning(file("cut.gz", Arrays.copyOf(z, z.length - 9)), 40, "corrupt gzip data");
        byte[] method = z.clone();
        method[2] = 7; // compression method 8 (deflate) is the only one
        failsMentioning(file("method.gz", method), 0, "corrupt gzip header", "Unsupported compression method");
        byte[] deflate = z.clone();
        deflate[10] = (byte) 0xFF; // block type 3 does not exist
        failsMentioning(file("deflate.gz", deflate), 0, "corrupt gzip data");
    }

    @Test
    void anEmptyArrayIsLegal() throws IOException {
        IdxArray empty = new IdxArray(new int[] {0, 28, 28}, new byte[0]);
        assertEquals(empty, IdxReader.read(file("empty.idx", raw(empty))));
    }

    @Test
    void aGzipFileOfSeveralMembersReadsAsTheirConcatenation() throws IOException {
        byte[] bytes = raw(sample());
        byte[] first = gzip(Arrays.copyOf(bytes, 17)), second = gzip(Arrays.copyOfRange(bytes, 17, bytes.length));
        byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        assertEquals(sample(), IdxReader.read(file("two.idx.gz", both)));
        byte[] padded = Arrays.copyOf(gzip(bytes), gzip(bytes).length + 5);
        assertEquals(sample(), IdxReader.read(file("padded.idx.gz", padded)), "zero padding after the last member, as gzip -t allows");
    }

    @Test
    void bytesAfterTheLastGzipMemberAreRejectedAsGzipTDoes() throws IOException {
        byte[] z = gzip(raw(sample()));
        byte[] garbage = Arrays.copyOf(z, z.length + 3);
        garbage[z.length] = 'x';
        failsMentioning(file("garbage.idx.gz", garbage), 40, "corrupt gzip data", "trailing bytes after the last gzip member");
        byte[] zerosThenGarbage = Arrays.copyOf(z, z.length + 3);
        zerosThenGarbage[z.length + 2] = 1;
        failsMentioning(file("zeros-garbage.idx.gz", zerosThenGarbage), 40, "trailing bytes after the last gzip member");
    }

    @Test
    void aHeaderDeclaringMoreThanTheDataLimitIsRejectedBeforeAnythingIsRead() throws IOException {
        // 2^15 x 2^15 + 1 x 1: one byte over a GiB, in a 30-byte gzip file that could never hold it.
        ByteBuffer header = ByteBuffer.allocate(16).put(new byte[] {0, 0, 8, 3}).putInt(1 << 15).putInt((1 << 15) + 1).putInt(1);
        failsMentioning(file("huge.idx.gz", gzip(header.array())), 4, "[32768, 32769, 1]", "more than the " + IdxReader.MAX_DATA_BYTES);
        failsMentioning(file("huge.idx", header.array()), 4, "(1024 MiB)");
    }
}
