package dev.symbiont.cli;

import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * The one-line error of a failed command: the JDK's own messages for file errors are a bare
 * path ({@code NoSuchFileException}) or a reason without the file, so each is turned into a
 * sentence naming the file and the problem.
 */
final class Failures {
    private Failures() {}

    /** What the user reads after {@code symbiont <command>: }. */
    static String message(Throwable e) {
        if (e instanceof UncheckedIOException u && u.getCause() != null) return message(u.getCause());
        if (e instanceof NoSuchFileException f) return file(f, "no such file or directory");
        if (e instanceof AccessDeniedException f) return file(f, "permission denied");
        if (e instanceof FileAlreadyExistsException f) return file(f, "already exists");
        if (e instanceof NotDirectoryException f) return file(f, "not a directory");
        if (e instanceof DirectoryNotEmptyException f) return file(f, "directory not empty");
        if (e instanceof FileSystemException f) return file(f, "cannot be read or written");
        if (e instanceof CharacterCodingException) return "a file is not valid UTF-8 text (" + e.getClass().getSimpleName() + ": " + e.getMessage() + ")";
        String message = e.getMessage();
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    /** "file: problem", the exception's own reason when it gives one. */
    private static String file(FileSystemException f, String problem) {
        return f.getFile() + (f.getOtherFile() == null ? "" : " -> " + f.getOtherFile()) + ": " + (f.getReason() == null ? problem : f.getReason());
    }

    /**
     * The line for an {@link OutOfMemoryError} while {@code doing}: the JVM's heap limit and how
     * to raise it, instead of a stack trace.
     */
    static String outOfMemory(String doing, OutOfMemoryError e) {
        return String.format(Locale.ROOT, "out of memory while %s (%s; the JVM's heap limit is %.1f GiB): use a smaller model, batch "
                        + "or data set, or give Java more memory, e.g. JAVA_OPTS=-Xmx16g bin/symbiont ...",
                doing, e.getMessage(), Runtime.getRuntime().maxMemory() / (double) (1L << 30));
    }
}
