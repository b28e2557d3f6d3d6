package dev.symbiont.fuzz;

import dev.symbiont.data.vision.IdxArray;
import dev.symbiont.data.vision.IdxFormatException;
import dev.symbiont.data.vision.IdxReader;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link IdxReader#read(Path)} on raw and gzip IDX files. A load is consistent when the file (or
 * its decompressed content) is exactly the magic number of unsigned bytes, the loaded
 * dimensions as big-endian sizes, and the loaded data, with nothing after it.
 */
final class IdxTarget implements FuzzTarget {
    private static final long[] SIZES = {0, 1, 2, 3, 27, 28, 29, 255, 256, 65535, 65536, 60000, 0x7FFF_FFF7L, 0x7FFF_FFF8L,
            0x7FFF_FFFFL, 0x8000_0000L, 0xFFFF_FFFFL};
    private static final int[] MAGIC_BYTES = {0, 1, 3, 8, 9, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x1F, 0x8B, 0xFF};

    @Override public String name() { return "idx"; }

    @Override public String suffix() { return ".idx"; }

    @Override public Class<? extends Exception> failure() { return IdxFormatException.class; }

    @Override
    public Object load(Path file) throws Exception {
        return IdxReader.read(file);
    }

    @Override
    public void check(Object loaded, Path file, byte[] bytes) throws Exception {
        IdxArray array = (IdxArray) loaded;
        byte[] content = isGzip(bytes) ? gunzip(bytes) : bytes;
        ByteBuffer in = ByteBuffer.wrap(content);
        assertEquals(0, in.getShort(), "magic zero bytes");
        assertEquals(IdxReader.UNSIGNED_BYTE, in.get(), "type");
        int ndims = in.get() & 0xFF;
        assertEquals(ndims, array.ndims());
        int[] dims = new int[ndims];
        for (int i = 0; i < ndims; i++) dims[i] = in.getInt();
        assertArrayEquals(dims, array.dims());
        assertArrayEquals(Arrays.copyOfRange(content, 4 + 4 * ndims, content.length), array.data());
    }

    /** The usual bound plus twice the decompressed size: a gzip file's data may really be 1,000 times its size. */
    @Override
    public long allocationBound(byte[] input) {
        return Fuzzer.allocationBound(input.length) + 2L * decompressedLength(input);
    }

    /** How many bytes a gzip input decompresses to before it ends or turns out corrupt; 0 for a raw one. */
    private static long decompressedLength(byte[] input) {
        if (!isGzip(input)) return 0;
        long n = 0;
        byte[] buffer = new byte[1 << 16];
        try (var z = new GZIPInputStream(new ByteArrayInputStream(input))) {
            for (int got; (got = z.read(buffer)) > 0; ) n += got;
        } catch (IOException e) {
            // corrupt from here on: the reader stops here too
        }
        return n;
    }

    /** Edits of the header's sizes, type and rank, and of the data's length, inside the gzip stream when there is one. */
    @Override
    public List<Mutation> formatMutations(Mutation generic) {
        return List.of(inside(IdxTarget::editSize), inside(IdxTarget::editMagic), inside(IdxTarget::resizeData),
                inside(generic), IdxTarget::toggleGzip);
    }

    private static byte[] editSize(byte[] in, Random rng) {
        if (in.length < 8) return in;
        int ndims = Math.min(in[3] & 0xFF, (in.length - 4) / 4);
        if (ndims == 0) return in;
        byte[] out = in.clone();
        ByteBuffer b = ByteBuffer.wrap(out);
        int at = 4 + 4 * rng.nextInt(ndims);
        long old = Integer.toUnsignedLong(b.getInt(at));
        long[] near = {old - 1, old + 1, old * 2, old / 2};
        long size = rng.nextBoolean() ? near[rng.nextInt(near.length)] : SIZES[rng.nextInt(SIZES.length)];
        b.putInt(at, (int) size);
        return out;
    }

    private static byte[] editMagic(byte[] in, Random rng) {
        if (in.length < 4) return in;
        byte[] out = in.clone();
        out[rng.nextInt(4)] = (byte) (rng.nextBoolean() ? MAGIC_BYTES[rng.nextInt(MAGIC_BYTES.length)] : rng.nextInt(256));
        return out;
    }

    /** Drops or appends up to 40 bytes at the end: the data no longer fills the sizes exactly. */
    private static byte[] resizeData(byte[] in, Random rng) {
        int delta = rng.nextInt(81) - 40;
        return Arrays.copyOf(in, Math.max(0, in.length + delta));
    }

    private static byte[] toggleGzip(byte[] in, Random rng) {
        if (!isGzip(in)) return gzip(in);
        byte[] content = tryGunzip(in);
        return content == null ? in : content;
    }

    /** Applies {@code edit} to the decompressed content of a gzip file (and recompresses), or to a raw file as it is. */
    private static Mutation inside(Mutation edit) {
        return (in, rng) -> {
            if (!isGzip(in)) return edit.apply(in, rng);
            byte[] content = tryGunzip(in);
            return content == null ? in : gzip(edit.apply(content, rng));
        };
    }

    private static boolean isGzip(byte[] bytes) {
        return bytes.length >= 2 && (bytes[0] & 0xFF) == 0x1f && (bytes[1] & 0xFF) == 0x8b;
    }

    private static byte[] gunzip(byte[] bytes) throws IOException {
        try (var z = new GZIPInputStream(new ByteArrayInputStream(bytes))) {
            return z.readAllBytes();
        }
    }

    private static byte[] tryGunzip(byte[] bytes) {
        try {
            return gunzip(bytes);
        } catch (IOException e) {
            return null; // already corrupt: leave it to the generic edits
        }
    }

    private static byte[] gzip(byte[] bytes) {
        var out = new ByteArrayOutputStream();
        try (var z = new GZIPOutputStream(out)) {
            z.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
