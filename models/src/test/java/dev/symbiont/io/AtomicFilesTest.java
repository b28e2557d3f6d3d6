package dev.symbiont.io;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class AtomicFilesTest {
    @TempDir Path dir;

    private void assumePosix() throws IOException {
        assumeTrue(Files.getFileStore(dir).supportsFileAttributeView(PosixFileAttributeView.class), "needs POSIX permissions");
    }

    @Test
    void aReplacedFileKeepsItsPermissions() throws IOException {
        assumePosix();
        Path file = dir.resolve("shared.bin");
        Files.write(file, new byte[] {1});
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
        AtomicFiles.write(file, out -> out.write(new byte[] {2, 3}));
        assertArrayEquals(new byte[] {2, 3}, Files.readAllBytes(file));
        assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    }

    @Test
    void aNewFileGetsTheSamePermissionsAsAPlainWriteWould() throws IOException {
        assumePosix();
        Path plain = dir.resolve("plain.bin");
        Files.write(plain, new byte[] {1});
        Path atomic = dir.resolve("atomic.bin");
        AtomicFiles.write(atomic, out -> out.write(1));
        assertEquals(Files.getPosixFilePermissions(plain), Files.getPosixFilePermissions(atomic));
    }

    @Test
    void aBodyThatThrowsLeavesTheTargetAndNoTemporaryFile() throws IOException {
        Path file = dir.resolve("f.bin");
        Files.write(file, new byte[] {9, 9});
        IOException e = assertThrows(IOException.class, () -> AtomicFiles.write(file, out -> {
            out.write(new byte[100_000]);
            throw new IOException("disk full");
        }));
        assertEquals("cannot write " + file + ": disk full", e.getMessage());
        assertArrayEquals(new byte[] {9, 9}, Files.readAllBytes(file));
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(file), s.toList());
        }
    }

    @Test
    void aFailedWriteNamesTheFileTheJdkMessageLeavesOut() throws IOException {
        Path file = dir.resolve("model.safetensors");
        IOException e = assertThrows(IOException.class, () -> AtomicFiles.write(file, out -> {
            throw new IOException("No space left on device"); // what FileChannel.write says on a full disk
        }));
        assertEquals("cannot write " + file + ": No space left on device", e.getMessage());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(List.of(), left.toList(), "the temporary file is removed");
        }
    }
}
