package dev.symbiont.data.vision;

import java.io.IOException;

/**
 * An IDX file (MNIST, Fashion-MNIST) that breaks the format or disagrees with its partner file.
 * The message names the file, the byte offset and what was expected there, so a corrupt download
 * can be found with a hex dump. For a gzip file the offset counts decompressed bytes.
 */
public final class IdxFormatException extends IOException {
    private final String source;
    private final long offset;

    IdxFormatException(String source, boolean decompressed, long offset, String detail) {
        super(source + ": at byte " + offset + (decompressed ? " of the decompressed data" : "") + ": " + detail);
        this.source = source;
        this.offset = offset;
    }

    IdxFormatException(String source, boolean decompressed, long offset, String detail, Throwable cause) {
        this(source, decompressed, offset, detail);
        initCause(cause);
    }

    /** The file (or classpath resource) that failed to parse. */
    public String source() { return source; }

    /** Where the problem is, in bytes of the IDX content (decompressed, for a gzip file). */
    public long offset() { return offset; }
}
