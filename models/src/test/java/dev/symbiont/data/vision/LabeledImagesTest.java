package dev.symbiont.data.vision;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LabeledImagesTest {
    private static final List<String> THREE = List.of("a", "b", "c");

    @TempDir Path dir;

    private Path write(String name, int[] dims, byte[] data) throws IOException {
        Path file = dir.resolve(name);
        IdxWriter.write(file, new IdxArray(dims, data));
        return file;
    }

    private Path images(int count) throws IOException {
        byte[] pixels = new byte[count * 2 * 3];
        for (int i = 0; i < pixels.length; i++) pixels[i] = (byte) (i * 11);
        return write("images-idx3-ubyte.gz", new int[] {count, 2, 3}, pixels);
    }

    private static IdxFormatException fails(Path images, Path labels, List<String> classes) {
        return assertThrows(IdxFormatException.class, () -> LabeledImages.read(images, labels, classes));
    }

    private static void mentions(Exception e, String... fragments) {
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' should mention " + f);
    }

    @Test
    void aMatchingPairReadsAsImagesWithLabels() throws IOException {
        Path labels = write("labels", new int[] {4}, new byte[] {2, 0, 1, 2});
        LabeledImages set = LabeledImages.read(images(4), labels, THREE);
        assertEquals(4, set.size());
        assertEquals(2, set.rows());
        assertEquals(3, set.cols());
        assertEquals(2, set.label(3));
        assertEquals((byte) ((6 + 1 * 3 + 2) * 11) & 0xFF, set.pixel(1, 1, 2));
        assertArrayEquals(new int[] {1, 1, 2}, set.classCounts());
        assertEquals(THREE, set.classNames());
        assertTrue(set.source().endsWith("images-idx3-ubyte.gz"));
    }

    @Test
    void countsThatDisagreeNameBothFiles() throws IOException {
        Path images = images(4);
        Path labels = write("labels.gz", new int[] {3}, new byte[] {0, 1, 2});
        IdxFormatException e = fails(images, labels, THREE);
        assertEquals(labels.toString(), e.source());
        assertEquals(4, e.offset());
        mentions(e, labels + ": at byte 4 of the decompressed data", "holds 3 labels", images + " holds 4 images");
    }

    @Test
    void aLabelOutOfRangeIsNamedWithItsIndexAndOffset() throws IOException {
        Path labels = write("labels", new int[] {4}, new byte[] {0, 1, 3, 2});
        IdxFormatException e = fails(images(4), labels, THREE);
        assertEquals(10, e.offset());
        mentions(e, "label 3 of example 2 is outside [0, 3)");
        Path high = write("high", new int[] {4}, new byte[] {0, (byte) 255, 0, 0});
        mentions(fails(images(4), high, THREE), "label 255 of example 1");
        // The same file is fine for a set with more classes.
        assertEquals(255, LabeledImages.read(images(4), high, java.util.Collections.nCopies(256, "x")).label(1));
    }

    @Test
    void filesOfTheWrongRankAreRejected() throws IOException {
        Path labels = write("labels", new int[] {4}, new byte[4]);
        mentions(fails(labels, labels, THREE), "an images file has 3 dimensions (count, rows, cols), this one has 1: [4]");
        mentions(fails(images(4), images(4), THREE), "a labels file has 1 dimension (count), this one has 3: [4, 2, 3]");
    }
}
