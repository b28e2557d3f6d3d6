package dev.symbiont.io;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;

import java.io.IOException;
import java.nio.file.Path;

/** The error for a file that is not valid JSON: the file, the line and column, and the parser's reason, cut short. */
public final class InvalidJson {
    private InvalidJson() {}

    /** {@code cause} came from parsing {@code file}'s bytes (no I/O), so it is about the content. */
    public static IOException of(Path file, IOException cause) {
        JsonLocation where = cause instanceof JsonProcessingException j ? j.getLocation() : null;
        String at = where == null ? "" : " at line " + where.getLineNr() + ", column " + where.getColumnNr();
        String why = cause instanceof JsonProcessingException j ? j.getOriginalMessage() : cause.getMessage();
        return new IOException(file + ": not valid JSON" + at + ": " + Excerpt.message(why), cause);
    }
}
