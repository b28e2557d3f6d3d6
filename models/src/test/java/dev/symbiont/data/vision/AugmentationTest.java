package dev.symbiont.data.vision;

import dev.symbiont.core.Generator;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AugmentationTest {
    private static final int ROWS = 3, COLS = 4;
    /** Pixel (y, x) is 10·(y+1) + (x+1): every value names its position; 0 only in the padding. */
    private static final byte[] IMAGE = new byte[ROWS * COLS];

    static {
        for (int y = 0; y < ROWS; y++) for (int x = 0; x < COLS; x++) IMAGE[y * COLS + x] = (byte) (10 * (y + 1) + x + 1);
    }

    /** The augmented image with mean 0 and std 1/255, so each output is the source byte again. */
    private static int[][] bytesAfter(int padding, Augmentation.Draw draw) {
        float[] out = new float[ROWS * COLS + 2];
        new Augmentation(padding, 0.5, 0f, 1f / 255).apply(IMAGE, 0, ROWS, COLS, draw, out, 1);
        int[][] grid = new int[ROWS][COLS];
        for (int y = 0; y < ROWS; y++) for (int x = 0; x < COLS; x++) grid[y][x] = Math.round(out[1 + y * COLS + x]);
        assertEquals(0f, out[0]); // nothing written outside the image's slot
        assertEquals(0f, out[out.length - 1]);
        return grid;
    }

    @Test
    void theCentreCropOfThePaddedImageIsTheImage() {
        assertArrayEquals(new int[][] {{11, 12, 13, 14}, {21, 22, 23, 24}, {31, 32, 33, 34}}, bytesAfter(2, new Augmentation.Draw(2, 2, false)));
    }

    @Test
    void aCropCornerShiftsThePixelsAndFillsWithZero() {
        // Top-left corner of the padded image: everything moves down and right by the padding.
        assertArrayEquals(new int[][] {{0, 0, 0, 0}, {0, 11, 12, 13}, {0, 21, 22, 23}}, bytesAfter(1, new Augmentation.Draw(0, 0, false)));
        // Bottom-right: up and left by one.
        assertArrayEquals(new int[][] {{22, 23, 24, 0}, {32, 33, 34, 0}, {0, 0, 0, 0}}, bytesAfter(1, new Augmentation.Draw(2, 2, false)));
        // Top row of padding 2 taken from one down: shifted down by one, left by two.
        assertArrayEquals(new int[][] {{0, 0, 0, 0}, {13, 14, 0, 0}, {23, 24, 0, 0}}, bytesAfter(2, new Augmentation.Draw(1, 4, false)));
    }

    @Test
    void aFlipMirrorsTheCropLeftToRight() {
        assertArrayEquals(new int[][] {{14, 13, 12, 11}, {24, 23, 22, 21}, {34, 33, 32, 31}}, bytesAfter(0, new Augmentation.Draw(0, 0, true)));
        // The crop is taken first (shift right by one), then mirrored, as torchvision composes them.
        assertArrayEquals(new int[][] {{0, 0, 0, 0}, {13, 12, 11, 0}, {23, 22, 21, 0}}, bytesAfter(1, new Augmentation.Draw(0, 0, true)));
    }

    @Test
    void normalisationScalesToUnitRangeThenSubtractsTheMeanAndDividesByTheStd() {
        Augmentation a = Augmentation.normalizeOnly(0.2860f, 0.3530f);
        byte[] pixels = {0, (byte) 255, (byte) 128, 1};
        float[] out = new float[4];
        a.apply(pixels, 0, 2, 2, a.draw(new Generator(1)), out, 0);
        double[] expected = {-0.2860 / 0.3530, (1 - 0.2860) / 0.3530, (128 / 255.0 - 0.2860) / 0.3530, (1 / 255.0 - 0.2860) / 0.3530};
        for (int i = 0; i < 4; i++) assertEquals(expected[i], out[i], 1e-6, "pixel " + i);
        // The padding is a zero pixel, normalised like one.
        Augmentation padded = new Augmentation(1, 0, 0.2860f, 0.3530f);
        padded.apply(pixels, 0, 2, 2, new Augmentation.Draw(0, 0, false), out, 0);
        assertEquals(expected[0], out[0], 1e-6);
        assertEquals(expected[0], out[1], 1e-6);
        assertEquals(expected[0], out[2], 1e-6);
        assertEquals(expected[0], out[3], 1e-6); // source pixel (0, 0) is 0 too
    }

    @Test
    void drawsCoverEveryCornerAndFlipAboutHalfTheTime() {
        Augmentation a = new Augmentation(2, 0.5, 0, 1);
        Generator random = new Generator(7);
        int[][] corners = new int[5][5];
        int flips = 0, n = 5000;
        for (int i = 0; i < n; i++) {
            Augmentation.Draw d = a.draw(random);
            corners[d.top()][d.left()]++;
            if (d.flip()) flips++;
        }
        for (int[] row : corners) for (int c : row) assertTrue(c > n / 25 / 2, "a corner drawn " + c + " times of " + n);
        assertTrue(Math.abs(flips - n / 2) < 5 * Math.sqrt(n / 4.0), flips + " flips of " + n);
        assertEquals(Augmentation.Draw.NONE, Augmentation.normalizeOnly(0, 1).draw(random));
        assertFalse(new Augmentation(3, 0, 0, 1).draw(new Generator(1)).flip());
    }

    @Test
    void badSettingsAndCornersAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new Augmentation(-1, 0.5, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Augmentation(1, 1.5, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Augmentation(1, Double.NaN, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> new Augmentation(1, 0.5, 0, 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Augmentation(1, 0.5, 0, 1).apply(IMAGE, 0, ROWS, COLS, new Augmentation.Draw(3, 0, false), new float[12], 0));
        assertTrue(e.getMessage().contains("(3, 0) is outside [0, 2]"), e.getMessage());
    }
}
