package dev.symbiont.data.vision;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.ZipException;

/**
 * Reads IDX files, the format of MNIST and Fashion-MNIST (LeCun et al.): a magic number
 * {@code 0x00 0x00 type ndims}, then {@code ndims} big-endian 32-bit sizes, then the elements in
 * row-major order. Files may be gzip-compressed (recognised by their first bytes, 1f 8b, not by
 * their name). Only the unsigned-byte type (0x08) is read, the one those data sets use.
 *
 * <p>Everything is checked before it is trusted: the magic number, the number of dimensions,
 * sizes whose product overflows or exceeds a Java array, and the sizes against the bytes present
 * — a raw file against its length before anything is allocated, a gzip stream as it is
 * decompressed, in 1 MiB pieces joined at the end, so a hostile header cannot make the reader
 * allocate more than twice the data that is really there; data past {@link #MAX_DATA_BYTES} or past
 * the JVM's heap limit is refused before any is read. A gzip file may hold several members but
 * nothing else after them except zero padding ({@code gzip -t}'s rule). Every failure is an
 * {@link IdxFormatException} naming the file and the byte offset.
 */
public final class IdxReader {
    /** The type byte of unsigned-byte data, the only type read. */
    public static final int UNSIGNED_BYTE = 0x08;
    /** More dimensions than this is not an image data set; MNIST uses 1 (labels) and 3 (images). */
    public static final int MAX_DIMS = 8;
    /**
     * The most data bytes read from one file: 1 GiB, twenty times Fashion-MNIST's training images
     * and above EMNIST's largest file (0.64 GB), so that a lying or runaway header fails at once.
     */
    public static final long MAX_DATA_BYTES = 1L << 30;
    /** The largest Java byte array the JVMs allow. */
    static final long MAX_ELEMENTS = Integer.MAX_VALUE - 8;
    /** A gzip stream's data is read in pieces of this size, so a lying header allocates nothing large. */
    private static final int CHUNK = 1 << 20;

    private IdxReader() {}

    /** Reads an IDX file, raw or gzip. */
    public static IdxArray read(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return read(file.toString(), in, Files.size(file));
        }
    }

    /**
     * Reads an IDX stream, raw or gzip (a classpath resource, say); {@code source} names it in
     * messages. The stream is read to its end but not closed.
     */
    public static IdxArray read(String source, InputStream in) throws IOException {
        return read(source, in, -1);
    }

    private static IdxArray read(String source, InputStream stream, long rawLength) throws IOException {
        BufferedInputStream in = new BufferedInputStream(stream, 1 << 16);
        in.mark(2);
        boolean gzip = in.read() == 0x1f && in.read() == 0x8b;
        in.reset();
        if (!gzip) return new Parse(source, false, in, rawLength).run();
        GzipMembers gunzip;
        try {
            gunzip = new GzipMembers(in, 1 << 16);
        } catch (ZipException | EOFException e) { // a corrupt or cut-off gzip header, not an I/O failure
            throw new IdxFormatException(source, true, 0, "corrupt gzip header: " + e.getMessage(), e);
        }
        return new Parse(source, true, gunzip, -1).run();
    }

    /** A human name for an IDX type byte, for messages. */
    static String typeName(int type) {
        return switch (type) {
            case 0x08 -> "unsigned byte";
            case 0x09 -> "signed byte";
            case 0x0B -> "int16";
            case 0x0C -> "int32";
            case 0x0D -> "float32";
            case 0x0E -> "float64";
            default -> "not an IDX type";
        };
    }

    /** One pass over one stream; {@code length} is the byte count when known (a raw file), else -1. */
    private static final class Parse {
        private final String source;
        private final boolean gzip;
        private final InputStream in;
        private final long length;
        private long position;

        Parse(String source, boolean gzip, InputStream in, long length) {
            this.source = source;
            this.gzip = gzip;
            this.in = in;
            this.length = length;
        }

        IdxArray run() throws IOException {
            try {
                return parse();
            } catch (ZipException | EOFException e) { // bad deflate data, a CRC or length mismatch, a cut-off stream
                if (!gzip) throw e;
                throw new IdxFormatException(source, true, position, "corrupt gzip data: " + e.getMessage(), e);
            }
        }

        private IdxArray parse() throws IOException {
            byte[] magic = readHeader(4, "the magic number (0x00 0x00 type ndims)");
            if (magic[0] != 0 || magic[1] != 0) {
                throw fail(0, String.format("magic number 0x%02X%02X%02X%02X is not an IDX file's: its first two bytes must be 0x00 0x00",
                        magic[0] & 0xFF, magic[1] & 0xFF, magic[2] & 0xFF, magic[3] & 0xFF));
            }
            int type = magic[2] & 0xFF;
            if (type != UNSIGNED_BYTE) {
                throw fail(2, String.format("data type 0x%02X (%s) is not supported: expected 0x08 (unsigned byte), the type of MNIST and Fashion-MNIST",
                        type, typeName(type)));
            }
            int ndims = magic[3] & 0xFF;
            if (ndims == 0 || ndims > MAX_DIMS) {
                throw fail(3, "expected 1 to " + MAX_DIMS + " dimensions, the header says " + ndims);
            }
            byte[] sizes = readHeader(4 * ndims, ndims + " dimension sizes of 4 bytes each");
            int[] dims = new int[ndims];
            long elements = 1;
            for (int i = 0; i < ndims; i++) {
                long d = Integer.toUnsignedLong(((sizes[4 * i] & 0xFF) << 24) | ((sizes[4 * i + 1] & 0xFF) << 16)
                        | ((sizes[4 * i + 2] & 0xFF) << 8) | (sizes[4 * i + 3] & 0xFF));
                if (d > MAX_ELEMENTS) {
                    throw fail(4 + 4L * i, "dimension " + i + " is " + d + ", more than the " + MAX_ELEMENTS + " elements a Java array holds");
                }
                dims[i] = (int) d;
                elements *= d; // below 2^31 before, times below 2^31: cannot overflow a long
                if (elements > MAX_ELEMENTS) {
                    throw fail(4, "dimensions " + Arrays.toString(Arrays.copyOf(dims, i + 1)) + (i + 1 < ndims ? "..." : "")
                            + " hold more than the " + MAX_ELEMENTS + " elements a Java array holds");
                }
            }
            if (elements > MAX_DATA_BYTES) {
                throw fail(4, "dimensions " + Arrays.toString(dims) + " hold " + elements + " bytes of data, more than the " + MAX_DATA_BYTES
                        + " an IDX file may hold here (" + (MAX_DATA_BYTES >> 20) + " MiB)");
            }
            long header = 4L + 4L * ndims;
            if (length >= 0 && length != header + elements) {
                throw fail(Math.min(length, header + elements), "the header's dimensions " + Arrays.toString(dims) + " need "
                        + elements + " data bytes after the " + header + "-byte header (" + (header + elements)
                        + " bytes in all), but the file has " + length + " bytes");
            }
            long needed = gzip ? 2 * elements : elements; // a gzip stream's data is read in pieces, then joined
            long heap = Runtime.getRuntime().maxMemory(); // the limit, not what is free now: garbage is not known until collected
            if (needed > heap) {
                throw fail(4, "dimensions " + Arrays.toString(dims) + " need " + needed + " bytes of memory to read, more than this JVM's "
                        + "heap limit of " + heap + " bytes; raise it (-Xmx)");
            }
            byte[] data = readData((int) elements, dims, header);
            if (in.read() != -1) {
                throw fail(position, "trailing bytes after the " + elements + " data bytes of dimensions " + Arrays.toString(dims)
                        + " (expected the file to end here)");
            }
            return new IdxArray(dims, data);
        }

        private byte[] readHeader(int n, String what) throws IOException {
            byte[] bytes = in.readNBytes(n);
            position += bytes.length;
            if (bytes.length < n) throw fail(position, "the file ends inside the header: expected " + what);
            return bytes;
        }

        /**
         * Reads exactly {@code n} bytes. Without a known length (gzip) the bytes go into chunks of
         * 1 MiB, joined once all have arrived, so what is allocated is at most twice what the
         * stream really holds, whatever the header claims.
         */
        private byte[] readData(int n, int[] dims, long header) throws IOException {
            if (length >= 0 || n <= CHUNK) return readChunk(n, 0, n, dims, header);
            List<byte[]> chunks = new ArrayList<>();
            for (long filled = 0; filled < n; filled += CHUNK) { // long: n may lie within a chunk of 2^31
                chunks.add(readChunk((int) Math.min(CHUNK, n - filled), filled, n, dims, header));
            }
            byte[] data = new byte[n];
            for (int i = 0; i < chunks.size(); i++) System.arraycopy(chunks.get(i), 0, data, i * CHUNK, chunks.get(i).length); // i * CHUNK < n
            return data;
        }

        private byte[] readChunk(int size, long before, int n, int[] dims, long header) throws IOException {
            byte[] chunk = new byte[size];
            int got = in.readNBytes(chunk, 0, size);
            position += got;
            if (got < size) {
                throw fail(position, "truncated: the header's dimensions " + Arrays.toString(dims) + " need " + n
                        + " data bytes (up to byte " + (header + n) + "), but the data ends after " + (before + got));
            }
            return chunk;
        }

        private IdxFormatException fail(long offset, String detail) {
            return new IdxFormatException(source, gzip, offset, detail);
        }
    }
}
