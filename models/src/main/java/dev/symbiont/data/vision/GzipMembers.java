package dev.symbiont.data.vision;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import java.util.zip.ZipException;

/**
 * The decompressed content of a gzip stream (RFC 1952) of one or more members, as {@code cat
 * a.gz b.gz} makes. After the last member only zero padding may follow: any other byte is an
 * error, as {@code gzip -t} and Python's gzip module have it ({@code GZIPInputStream} ignores such
 * bytes silently). Errors are {@link ZipException} (bad data, a CRC or length mismatch, trailing
 * bytes) or {@link EOFException} (a cut-off stream).
 */
final class GzipMembers extends InputStream {
    private static final int FHCRC = 2, FEXTRA = 4, FNAME = 8, FCOMMENT = 16;

    private final PushbackInputStream in;
    private final byte[] input;
    private final Inflater inflater = new Inflater(true);
    private final CRC32 crc = new CRC32(), headerCrc = new CRC32();
    private int inputLength;
    private long memberBytes;
    private boolean ended;

    /** Reads the first member's header from {@code raw}, which must start with the gzip magic bytes. */
    GzipMembers(InputStream raw, int bufferSize) throws IOException {
        this.in = new PushbackInputStream(raw, bufferSize);
        this.input = new byte[bufferSize];
        readHeader();
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) return 0;
        while (!ended) {
            if (inflater.needsInput()) {
                inputLength = in.read(input);
                if (inputLength < 0) throw new EOFException("the gzip stream ends inside a member's compressed data");
                inflater.setInput(input, 0, inputLength);
            }
            int got;
            try {
                got = inflater.inflate(b, off, len);
            } catch (DataFormatException e) {
                throw new ZipException("invalid deflate data: " + e.getMessage());
            }
            if (got > 0) {
                crc.update(b, off, got);
                memberBytes += got;
                return got;
            }
            if (inflater.needsDictionary()) throw new ZipException("a deflate stream that needs a preset dictionary is not gzip");
            if (inflater.finished()) endMember();
        }
        return -1;
    }

    /** The member's trailer (CRC-32 and length), then the next member's header, zero padding or the end. */
    private void endMember() throws IOException {
        int unread = inflater.getRemaining();
        if (unread > 0) in.unread(input, inputLength - unread, unread);
        long expectedCrc = readLittleEndian(4), expectedSize = readLittleEndian(4);
        if (expectedCrc != crc.getValue()) throw new ZipException("CRC-32 mismatch: the trailer says " + Long.toHexString(expectedCrc)
                + ", the data's is " + Long.toHexString(crc.getValue()));
        if (expectedSize != (memberBytes & 0xFFFF_FFFFL)) {
            throw new ZipException("length mismatch: the trailer says " + expectedSize + " bytes (mod 2^32), the member held " + memberBytes);
        }
        int next = in.read();
        if (next < 0) {
            ended = true;
            return;
        }
        if (next == 0) {
            for (int c; (c = in.read()) >= 0; ) {
                if (c != 0) throw trailing();
            }
            ended = true;
            return;
        }
        in.unread(next);
        if (next != 0x1F) throw trailing();
        inflater.reset();
        crc.reset();
        memberBytes = 0;
        readHeader();
    }

    private static ZipException trailing() {
        return new ZipException("trailing bytes after the last gzip member (neither another member nor zero padding)");
    }

    /** A member's header; its bytes go through {@link #headerCrc} for the optional header CRC (FHCRC). */
    private void readHeader() throws IOException {
        headerCrc.reset();
        if (readByte() != 0x1F || readByte() != 0x8B) throw trailing();
        if (readByte() != 8) throw new ZipException("Unsupported compression method (gzip uses 8, deflate)");
        int flags = readByte();
        skip(6); // modification time, extra flags, operating system
        if ((flags & FEXTRA) != 0) skip((int) readLittleEndian(2));
        if ((flags & FNAME) != 0) skipZeroTerminated();
        if ((flags & FCOMMENT) != 0) skipZeroTerminated();
        if ((flags & FHCRC) != 0) {
            long expected = headerCrc.getValue() & 0xFFFF;
            if (readLittleEndian(2) != expected) throw new ZipException("Corrupt GZIP header: the header CRC does not match");
        }
    }

    private int readByte() throws IOException {
        int c = in.read();
        if (c < 0) throw new EOFException("the gzip stream ends inside a member's header or trailer");
        headerCrc.update(c);
        return c;
    }

    private long readLittleEndian(int bytes) throws IOException {
        long v = 0;
        for (int i = 0; i < bytes; i++) v |= (long) readByte() << (8 * i);
        return v;
    }

    private void skip(int n) throws IOException {
        for (int i = 0; i < n; i++) readByte();
    }

    private void skipZeroTerminated() throws IOException {
        while (readByte() != 0) { /* a file name or comment */ }
    }

    @Override
    public void close() throws IOException {
        inflater.end();
        in.close();
    }
}
