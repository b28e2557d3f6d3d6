package dev.symbiont.data.vision;

import dev.symbiont.data.Dataset;
import dev.symbiont.data.Seeds;

import java.util.Objects;

/**
 * Labelled images as a {@link Dataset} of (1, rows, cols) float32 examples, transformed by an
 * {@link Augmentation}: torchvision's {@code RandomCrop} + {@code RandomHorizontalFlip} +
 * {@code ToTensor} + {@code Normalize}, run where the {@link dev.symbiont.data.DataLoader}
 * prepares batches (its worker thread, with prefetch).
 *
 * <p>The draws for example i in epoch e come from a generator derived from (seed, e, i) alone
 * ({@link Seeds}), so the same seed gives the same batches whether they are prepared in the
 * caller, on a prefetching worker, or in any order; each epoch sees fresh crops and flips.
 * {@link #get(int)} is epoch 0.
 *
 * <pre>{@code
 * var train = FashionMnist.dataset(dataDir, Split.TRAIN, seed);   // dataDir null: installed set or shipped subset
 * var loader = DataLoader.builder(train, ImageExample::collate).batchSize(128).shuffle(seed).prefetch(2).build();
 * for (ImageBatch b : loader.epoch(0)) step(b.images(), b.labels()); // (128, 1, 28, 28) float32, (128) int64
 * }</pre>
 */
public final class ImageDataset implements Dataset<ImageExample> {
    // Keeps augmentation streams apart from the loader's shuffle stream when both use one seed.
    private static final long AUGMENT_STREAM = 0x4155_474D_454E_54L; // "AUGMENT"

    private final LabeledImages images;
    private final Augmentation augmentation;
    private final long seed;

    /** {@code seed} drives the random crops and flips; it is unused by a deterministic augmentation. */
    public ImageDataset(LabeledImages images, Augmentation augmentation, long seed) {
        this.images = Objects.requireNonNull(images, "images");
        this.augmentation = Objects.requireNonNull(augmentation, "augmentation");
        this.seed = seed;
    }

    public LabeledImages images() { return images; }

    public Augmentation augmentation() { return augmentation; }

    @Override
    public int size() { return images.size(); }

    /** Example {@code index} as epoch 0 sees it. */
    @Override
    public ImageExample get(int index) { return get(index, 0); }

    /**
     * Example {@code index} as epoch {@code epoch} sees it.
     *
     * @return pixels (1, rows, cols) float32, the label
     */
    @Override
    public ImageExample get(int index, int epoch) {
        Objects.checkIndex(index, images.size());
        if (epoch < 0) throw new IllegalArgumentException("ImageDataset: epoch must be >= 0, got " + epoch);
        int rows = images.rows(), cols = images.cols();
        float[] pixels = new float[rows * cols];
        Augmentation.Draw draw = augmentation.isRandom()
                ? augmentation.draw(Seeds.generator(Seeds.mix(seed, AUGMENT_STREAM), stream(epoch, index)))
                : Augmentation.Draw.NONE;
        augmentation.apply(images.pixelBytes(), index * rows * cols, rows, cols, draw, pixels, 0);
        return new ImageExample(pixels, 1, rows, cols, images.label(index));
    }

    /** One stream per (epoch, index): epoch in the high word, index in the low. */
    private static long stream(int epoch, int index) {
        return ((long) epoch << 32) | index;
    }

    @Override
    public String toString() { return "ImageDataset(" + images + ", " + augmentation + ")"; }
}
