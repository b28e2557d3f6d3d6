package dev.symbiont.data.vision;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * MNIST (LeCun, Cortes and Burges): 28×28 grayscale handwritten digits, 60,000 for training and
 * 10,000 for testing. Nothing is shipped or installed: the caller names a directory holding the
 * four IDX files (gzip or raw, directly or in torchvision's {@code MNIST/raw/} layout).
 */
public final class Mnist {
    /** The class names, indexed by label (torchvision's {@code MNIST.classes}). */
    public static final List<String> CLASSES = List.of("0 - zero", "1 - one", "2 - two", "3 - three", "4 - four",
            "5 - five", "6 - six", "7 - seven", "8 - eight", "9 - nine");
    /** The training set's pixel mean and standard deviation after scaling to [0, 1]. */
    public static final float MEAN = 0.1307f, STD = 0.3081f;

    private Mnist() {}

    /** The split from {@code dir}. */
    public static LabeledImages load(Path dir, Split split) throws IOException {
        return IdxImageFiles.read(dir, "MNIST", split, CLASSES);
    }

    /** Training: random crop (padding 2) and normalisation, no flip (a mirrored digit is another glyph); test: normalisation only. */
    public static Augmentation augmentation(Split split) {
        return split == Split.TRAIN ? new Augmentation(FashionMnist.CROP_PADDING, 0, MEAN, STD) : Augmentation.normalizeOnly(MEAN, STD);
    }

    /** {@link #load} as a dataset with the split's {@link #augmentation}; {@code seed} drives it. */
    public static ImageDataset dataset(Path dir, Split split, long seed) throws IOException {
        return new ImageDataset(load(dir, split), augmentation(split), seed);
    }
}
