package dev.symbiont.data.vision;

import dev.symbiont.io.AtomicFiles;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/**
 * Writes unsigned-byte IDX files that {@link IdxReader} (and torchvision, and the original MNIST
 * tools) read back: gzip-compressed when the name ends in {@code .gz}, raw otherwise. The file is
 * replaced atomically, so an interrupted write leaves the old one intact.
 */
public final class IdxWriter {
    private IdxWriter() {}

    /** Writes {@code array} to {@code file}. */
    public static void write(Path file, IdxArray array) throws IOException {
        boolean gzip = file.getFileName().toString().endsWith(".gz");
        AtomicFiles.write(file, out -> {
            if (!gzip) {
                write(out, array);
                return;
            }
            GZIPOutputStream z = new GZIPOutputStream(out, 1 << 16);
            write(z, array);
            z.finish();
        });
    }

    /** Writes {@code array} in the IDX format to {@code out}, which is left open. */
    public static void write(OutputStream out, IdxArray array) throws IOException {
        int ndims = array.ndims();
        out.write(new byte[] {0, 0, IdxReader.UNSIGNED_BYTE, (byte) ndims});
        for (int i = 0; i < ndims; i++) {
            int d = array.dim(i);
            out.write(new byte[] {(byte) (d >>> 24), (byte) (d >>> 16), (byte) (d >>> 8), (byte) d});
        }
        out.write(array.data());
    }
}
