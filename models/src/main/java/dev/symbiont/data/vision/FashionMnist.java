package dev.symbiont.data.vision;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Fashion-MNIST (Xiao, Rasul and Vollgraf, Zalando Research, 2017): 28×28 grayscale images of
 * clothing in 10 classes, 60,000 for training and 10,000 for testing, MIT licence.
 *
 * <p>Where it comes from, in order: a directory the caller names (the four IDX files, gzip or
 * raw, directly or in torchvision's {@code FashionMNIST/raw/} layout); Debian's
 * {@code dataset-fashion-mnist} package ({@value #DEBIAN_DIR}); else the stratified subset
 * shipped in this jar (600 training and 100 test images per class, drawn by
 * {@code bin/make-fashion-mnist-subset}; origin, seed and checksums in the README beside it), so
 * tests, examples and a default run work offline. Tests that must not depend on what is
 * installed use {@link #subset}.
 */
public final class FashionMnist {
    /** The class names, indexed by label (torchvision's {@code FashionMNIST.classes}). */
    public static final List<String> CLASSES = List.of("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
            "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot");
    /** The training set's pixel mean and standard deviation after scaling to [0, 1]. */
    public static final float MEAN = 0.2860f, STD = 0.3530f;
    /** Where Debian's {@code dataset-fashion-mnist} installs the four original files. */
    public static final String DEBIAN_DIR = "/usr/share/datasets/fashion-mnist";
    /** The classpath folder of the shipped subset. */
    public static final String SUBSET_RESOURCE = "/dev/symbiont/data/vision/fashion-mnist/";
    /** Random-crop padding of the training augmentation (28×28 images, so 2 rather than CIFAR's 4). */
    public static final int CROP_PADDING = 2;
    private static final String TORCHVISION_NAME = "FashionMNIST";

    private FashionMnist() {}

    /** The full set when Debian's package is installed, else the shipped subset. */
    public static LabeledImages load(Split split) throws IOException {
        return installed() ? IdxImageFiles.read(Path.of(DEBIAN_DIR), TORCHVISION_NAME, split, CLASSES) : subset(split);
    }

    /** The split from {@code dir} (which must hold the four files), or {@link #load(Split)} when dir is null. */
    public static LabeledImages load(Path dir, Split split) throws IOException {
        return dir == null ? load(split) : IdxImageFiles.read(dir, TORCHVISION_NAME, split, CLASSES);
    }

    /** The subset shipped in this jar: 6,000 training and 1,000 test images, the classes balanced. */
    public static LabeledImages subset(Split split) throws IOException {
        return IdxImageFiles.readResource(SUBSET_RESOURCE, split, CLASSES);
    }

    /** Whether Debian's package has installed the full set. */
    public static boolean installed() {
        return IdxImageFiles.complete(Path.of(DEBIAN_DIR), TORCHVISION_NAME);
    }

    /** Training: random crop (padding 2), flip (p = 0.5), normalisation; test: normalisation only. */
    public static Augmentation augmentation(Split split) {
        return split == Split.TRAIN ? Augmentation.cropAndFlip(CROP_PADDING, MEAN, STD) : Augmentation.normalizeOnly(MEAN, STD);
    }

    /** {@link #load(Path, Split)} as a dataset with the split's {@link #augmentation}; {@code seed} drives it. */
    public static ImageDataset dataset(Path dir, Split split, long seed) throws IOException {
        return new ImageDataset(load(dir, split), augmentation(split), seed);
    }
}
