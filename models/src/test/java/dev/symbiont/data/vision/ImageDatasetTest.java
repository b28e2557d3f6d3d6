package dev.symbiont.data.vision;

import dev.symbiont.core.DType;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.Dataset;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImageDatasetTest {
    private static final int N = 37, ROWS = 6, COLS = 5;
    private static final Augmentation RANDOM = new Augmentation(2, 0.5, 0.25f, 0.5f);

    /** 37 images of 6x5 with varied bytes, labels i mod 3. */
    static LabeledImages images() throws IdxFormatException {
        byte[] pixels = new byte[N * ROWS * COLS];
        for (int i = 0; i < pixels.length; i++) pixels[i] = (byte) (i * 31 + i / 7);
        byte[] labels = new byte[N];
        for (int i = 0; i < N; i++) labels[i] = (byte) (i % 3);
        return LabeledImages.of("images", new IdxArray(new int[] {N, ROWS, COLS}, pixels), "labels",
                new IdxArray(new int[] {N}, labels), List.of("a", "b", "c"));
    }

    /** Every batch of epochs 0 to 2 as (images, labels) arrays. */
    private static List<String> batches(Dataset<ImageExample> dataset, int prefetch) {
        var loader = DataLoader.builder(dataset, ImageExample::collate).batchSize(8).shuffle(5).prefetch(prefetch).build();
        List<String> all = new ArrayList<>();
        for (int e = 0; e < 3; e++) {
            try (var epoch = loader.epoch(e)) {
                for (ImageBatch b : epoch) all.add(Arrays.toString(b.images().toFloatArray()) + Arrays.toString(b.labels().toLongArray()));
            }
        }
        return all;
    }

    @Test
    void batchesAreImagesOfOneChannelAndInt64Labels() throws IdxFormatException {
        var loader = DataLoader.builder(new ImageDataset(images(), RANDOM, 1), ImageExample::collate).batchSize(8).build();
        ImageBatch b = loader.batch(0, 4);
        assertArrayEquals(new int[] {5, 1, ROWS, COLS}, b.images().shape());
        assertEquals(DType.FLOAT32, b.images().dtype());
        assertArrayEquals(new int[] {5}, b.labels().shape());
        assertEquals(DType.INT64, b.labels().dtype());
        assertArrayEquals(new long[] {32 % 3, 33 % 3, 34 % 3, 35 % 3, 36 % 3}, b.labels().toLongArray());
    }

    @Test
    void theSameSeedGivesTheSameBatchesWhereverTheyArePrepared() throws IdxFormatException {
        var dataset = new ImageDataset(images(), RANDOM, 11);
        List<String> inline = batches(dataset, 0);
        assertEquals(inline, batches(dataset, 1));
        assertEquals(inline, batches(dataset, 4));
        assertEquals(inline, batches(new ImageDataset(images(), RANDOM, 11), 2));
        assertNotEquals(inline, batches(new ImageDataset(images(), RANDOM, 12), 0));
    }

    @Test
    void anExampleIsAPureFunctionOfSeedEpochAndIndexOnAnyThreadInAnyOrder() throws IdxFormatException {
        var dataset = new ImageDataset(images(), RANDOM, 3);
        var concurrent = new ConcurrentHashMap<Integer, ImageExample>();
        IntStream.range(0, 4 * N).parallel().map(i -> 4 * N - 1 - i).forEach(k -> concurrent.put(k, dataset.get(k % N, k / N)));
        for (int k = 0; k < 4 * N; k++) assertEquals(dataset.get(k % N, k / N), concurrent.get(k), "example " + k % N + " epoch " + k / N);
        assertEquals(dataset.get(5, 0), dataset.get(5));
        assertEquals(dataset.get(5, 0), dataset.slice(3, 10).get(2, 0));
        assertEquals(dataset.get(5, 2), dataset.slice(3, 10).get(2, 2)); // a slice keeps the epoch
    }

    @Test
    void eachEpochDrawsFreshCropsAndFlips() throws IdxFormatException {
        var dataset = new ImageDataset(images(), RANDOM, 3);
        int differ = 0;
        for (int i = 0; i < N; i++) if (!dataset.get(i, 0).equals(dataset.get(i, 1))) differ++;
        // 25 corners x 2 flips: an image keeps its epoch-0 transform with chance 1/50.
        assertTrue(differ > N / 2, differ + " of " + N + " images changed between epochs");
    }

    @Test
    void everyAugmentedImageIsAShiftedPossiblyMirroredCopyOfItsSource() throws IdxFormatException {
        LabeledImages set = images();
        var dataset = new ImageDataset(set, RANDOM, 9);
        for (int i = 0; i < N; i++) {
            float[] got = dataset.get(i, 1).pixels();
            assertTrue(matchesSomeDraw(set, i, got), "image " + i + " is no crop/flip of its source");
        }
    }

    private static boolean matchesSomeDraw(LabeledImages set, int index, float[] got) {
        for (int top = 0; top <= 4; top++) {
            for (int left = 0; left <= 4; left++) {
                for (boolean flip : new boolean[] {false, true}) {
                    boolean same = true;
                    for (int y = 0; y < ROWS && same; y++) {
                        for (int x = 0; x < COLS && same; x++) {
                            int sy = y + top - 2, sx = (flip ? COLS - 1 - x : x) + left - 2;
                            int v = sy < 0 || sy >= ROWS || sx < 0 || sx >= COLS ? 0 : set.pixel(index, sy, sx);
                            same = Math.abs((v / 255.0 - 0.25) / 0.5 - got[y * COLS + x]) < 1e-6;
                        }
                    }
                    if (same) return true;
                }
            }
        }
        return false;
    }

    @Test
    void withoutAugmentationEveryEpochSeesTheNormalisedSource() throws IdxFormatException {
        LabeledImages set = images();
        var dataset = new ImageDataset(set, Augmentation.normalizeOnly(0.25f, 0.5f), 9);
        for (int e = 0; e < 3; e++) {
            float[] got = dataset.get(7, e).pixels();
            for (int y = 0; y < ROWS; y++) {
                for (int x = 0; x < COLS; x++) assertEquals((set.pixel(7, y, x) / 255.0 - 0.25) / 0.5, got[y * COLS + x], 1e-6);
            }
        }
        assertEquals(Augmentation.normalizeOnly(FashionMnist.MEAN, FashionMnist.STD), FashionMnist.augmentation(Split.TEST));
        assertTrue(FashionMnist.augmentation(Split.TRAIN).isRandom());
    }
}
