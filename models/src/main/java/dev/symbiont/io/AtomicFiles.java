package dev.symbiont.io;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.security.SecureRandom;

/**
 * Writes a file so that readers see either the old content or the complete new content: the
 * bytes go to a temporary file in the same directory, are forced to disk, and the temporary
 * file is renamed over the target. A failure at any point leaves the target untouched.
 */
public final class AtomicFiles {
    private static final SecureRandom RANDOM = new SecureRandom();

    private AtomicFiles() {}

    /** Writes the bytes produced by {@code body}; the stream is buffered and closed here. */
    public static void write(Path target, Body body) throws IOException {
        Path absolute = target.toAbsolutePath();
        Path dir = absolute.getParent();
        Files.createDirectories(dir);
        Path temp = dir.resolve("." + absolute.getFileName() + "." + Long.toUnsignedString(RANDOM.nextLong(), 36) + ".tmp");
        // CREATE_NEW, not Files.createTempFile: that one forces mode 0600 onto every file written.
        // Opened before the try, so a name clash never deletes a file this call did not create.
        FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.CREATE_NEW);
        boolean done = false;
        try {
            try (channel) {
                copyPermissions(absolute, temp);
                OutputStream out = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
                body.writeTo(out);
                out.flush();
                channel.force(true);
            } catch (IOException e) {
                throw naming(target, e);
            }
            move(temp, absolute);
            done = true;
        } finally {
            if (!done) Files.deleteIfExists(temp);
        }
        syncDirectory(dir);
    }

    /**
     * The write's failure naming the file: the JDK's message for a full disk or a failed device
     * write is only "No space left on device" or "Input/output error".
     */
    private static IOException naming(Path target, IOException e) {
        if (e instanceof java.nio.file.FileSystemException || (e.getMessage() != null && e.getMessage().contains(target.toString()))) return e;
        return new IOException("cannot write " + target + ": " + e.getMessage(), e);
    }

    /** A replaced file keeps its mode, as it would when overwritten in place; a new one gets the umask's. */
    private static void copyPermissions(Path from, Path to) throws IOException {
        if (!Files.exists(from) || !Files.getFileStore(to).supportsFileAttributeView(PosixFileAttributeView.class)) return;
        Files.setPosixFilePermissions(to, Files.getPosixFilePermissions(from));
    }

    private static void move(Path temp, Path target) throws IOException {
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("cannot replace " + target + " atomically: the file system does not support atomic renames", e);
        }
    }

    /** Makes the rename itself durable where the platform allows opening a directory. */
    private static void syncDirectory(Path dir) {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException | UnsupportedOperationException ignored) {
            // Not every platform can open a directory; the rename is still atomic there.
        }
    }

    /** Writes a file's content to a stream. */
    @FunctionalInterface
    public interface Body {
        void writeTo(OutputStream out) throws IOException;
    }
}
