package dev.symbiont.io;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A safetensors file that breaks the format. The message names the file, the tensor when one is
 * involved, and the byte offsets, so a corrupt checkpoint can be found with a hex dump.
 */
public final class SafetensorsFormatException extends IOException {
    private final Path file;
    private final String tensor;

    SafetensorsFormatException(Path file, String tensor, String detail) {
        super(file + ": " + (tensor == null ? "" : "tensor " + quote(tensor) + " ") + detail);
        this.file = file;
        this.tensor = tensor;
    }

    SafetensorsFormatException(Path file, String tensor, String detail, Throwable cause) {
        this(file, tensor, detail);
        initCause(cause);
    }

    /** The file that failed to parse. */
    public Path file() { return file; }

    /** The tensor the problem belongs to, or null for a problem with the file as a whole. */
    public String tensor() { return tensor; }

    /** A name in double quotes, as it appears in the JSON header, cut when long ({@link Excerpt#quote}). */
    static String quote(String name) {
        return Excerpt.quote(name);
    }
}
