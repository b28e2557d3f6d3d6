package dev.symbiont.cli;

import dev.symbiont.data.vision.Augmentation;
import dev.symbiont.data.vision.FashionMnist;
import dev.symbiont.data.vision.ImageDataset;
import dev.symbiont.data.vision.LabeledImages;
import dev.symbiont.data.vision.Split;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where {@code --task fashion-mnist} reads its images: {@code --data DIR} (the four IDX files),
 * {@code --data subset} (the subset shipped in the jar), or by default Debian's full set when
 * {@code dataset-fashion-mnist} is installed and the subset otherwise.
 *
 * @param dir         the directory holding the full set; null for the shipped subset
 * @param description what the run's first line says it trains on
 */
record ImageData(Path dir, String description) {
    static final String SUBSET = "subset";

    /** The source {@code --data} names, or the default for null. */
    static ImageData of(String flag) {
        if (SUBSET.equals(flag)) return subset();
        if (flag != null) {
            Path dir = Path.of(flag);
            if (!Files.isDirectory(dir)) {
                throw new IllegalArgumentException("--data " + flag + " is not a directory; give one that holds Fashion-MNIST's four IDX files, or 'subset'");
            }
            return new ImageData(dir, "Fashion-MNIST from " + dir);
        }
        if (FashionMnist.installed()) {
            return new ImageData(Path.of(FashionMnist.DEBIAN_DIR), "the full Fashion-MNIST from " + FashionMnist.DEBIAN_DIR + " (dataset-fashion-mnist)");
        }
        return subset();
    }

    private static ImageData subset() {
        return new ImageData(null, "the Fashion-MNIST subset shipped with Symbiont (apt-get install dataset-fashion-mnist or --data DIR for the full set)");
    }

    /** What the run's settings record: the directory, or {@code subset}. */
    String setting() { return dir == null ? SUBSET : dir.toString(); }

    LabeledImages load(Split split) throws IOException {
        return dir == null ? FashionMnist.subset(split) : FashionMnist.load(dir, split);
    }

    /**
     * The split with Fashion-MNIST's augmentation for it (crop and flip for training, normalisation
     * only for test); an empty split is an error, not an accuracy of 0/0.
     */
    ImageDataset dataset(Split split, long seed) throws IOException {
        ImageDataset set = new ImageDataset(load(split), FashionMnist.augmentation(split), seed);
        if (set.size() == 0) {
            throw new IOException("the " + split.name().toLowerCase(java.util.Locale.ROOT) + " split of " + description()
                    + " holds no images: there is nothing to evaluate");
        }
        return set;
    }

    /**
     * The training split with a random crop of {@code cropPadding} (0: none) and a horizontal
     * flip, then normalisation: torchvision's RandomCrop(28, cropPadding), RandomHorizontalFlip().
     */
    ImageDataset trainingSet(int cropPadding, long seed) throws IOException {
        return new ImageDataset(load(Split.TRAIN), Augmentation.cropAndFlip(cropPadding, FashionMnist.MEAN, FashionMnist.STD), seed);
    }
}
