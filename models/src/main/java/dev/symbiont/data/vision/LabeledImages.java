package dev.symbiont.data.vision;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Grayscale images and their class labels, read from an IDX pair: an images file of dimensions
 * (count, rows, cols) and a labels file of dimension (count) whose every label is a class index
 * in [0, classes). Pixels stay bytes (0..255) until a {@link ImageDataset} turns them into
 * normalised floats, so the full Fashion-MNIST training set takes 47 MB.
 */
public final class LabeledImages {
    private final String source;
    private final int size, rows, cols;
    private final byte[] pixels;
    private final byte[] labels;
    private final List<String> classNames;

    private LabeledImages(String source, int size, int rows, int cols, byte[] pixels, byte[] labels, List<String> classNames) {
        this.source = source;
        this.size = size;
        this.rows = rows;
        this.cols = cols;
        this.pixels = pixels;
        this.labels = labels;
        this.classNames = classNames;
    }

    /** Reads an images file and its labels file (raw or gzip); {@code classNames} gives the class count. */
    public static LabeledImages read(Path images, Path labels, List<String> classNames) throws IOException {
        return of(images.toString(), IdxReader.read(images), labels.toString(), IdxReader.read(labels), classNames);
    }

    /** As {@link #read(Path, Path, List)} from streams (classpath resources, say), named in messages. */
    public static LabeledImages read(String imagesSource, InputStream images, String labelsSource, InputStream labels,
                                     List<String> classNames) throws IOException {
        return of(imagesSource, IdxReader.read(imagesSource, images), labelsSource, IdxReader.read(labelsSource, labels), classNames);
    }

    /**
     * Checks an IDX pair against each other: images (count, rows, cols), labels (count) with the
     * same count, every label in [0, classNames.size()).
     *
     * @throws IdxFormatException naming the file and the offset that disagrees
     */
    public static LabeledImages of(String imagesSource, IdxArray images, String labelsSource, IdxArray labels,
                                   List<String> classNames) throws IdxFormatException {
        List<String> names = List.copyOf(Objects.requireNonNull(classNames, "classNames"));
        if (names.isEmpty() || names.size() > 256) {
            throw new IllegalArgumentException("LabeledImages: 1 to 256 classes (labels are bytes), got " + names.size());
        }
        if (images.ndims() != 3) {
            throw mismatch(imagesSource, 3, "an images file has 3 dimensions (count, rows, cols), this one has "
                    + images.ndims() + ": " + Arrays.toString(images.dims()));
        }
        if (labels.ndims() != 1) {
            throw mismatch(labelsSource, 3, "a labels file has 1 dimension (count), this one has "
                    + labels.ndims() + ": " + Arrays.toString(labels.dims()));
        }
        int count = images.dim(0);
        if (labels.dim(0) != count) {
            throw mismatch(labelsSource, 4, "holds " + labels.dim(0) + " labels, but the images file "
                    + imagesSource + " holds " + count + " images; expected one label per image");
        }
        byte[] y = labels.data();
        for (int i = 0; i < count; i++) {
            int label = y[i] & 0xFF;
            if (label >= names.size()) {
                throw mismatch(labelsSource, 8 + i, "label " + label + " of example " + i
                        + " is outside [0, " + names.size() + "): expected one of the " + names.size() + " classes");
            }
        }
        return new LabeledImages(imagesSource, count, images.dim(1), images.dim(2), images.data(), y, names);
    }

    /** A pair check failed at {@code offset} of the IDX content (decompressed, for a file named .gz). */
    private static IdxFormatException mismatch(String source, long offset, String detail) {
        return new IdxFormatException(source, source.endsWith(".gz"), offset, detail);
    }

    /** Where the images came from: a file path or a classpath resource. */
    public String source() { return source; }

    /** The number of images. */
    public int size() { return size; }

    public int rows() { return rows; }

    public int cols() { return cols; }

    /** The class names, indexed by label. */
    public List<String> classNames() { return classNames; }

    /** The number of classes. */
    public int classes() { return classNames.size(); }

    /** The label of image {@code index}, in [0, classes()). */
    public int label(int index) {
        Objects.checkIndex(index, size);
        return labels[index] & 0xFF;
    }

    /** Pixel (row, col) of image {@code index}, 0..255. */
    public int pixel(int index, int row, int col) {
        Objects.checkIndex(index, size);
        Objects.checkIndex(row, rows);
        Objects.checkIndex(col, cols);
        return pixels[(index * rows + row) * cols + col] & 0xFF;
    }

    /** How many images each class has, indexed by label. */
    public int[] classCounts() {
        int[] counts = new int[classes()];
        for (int i = 0; i < size; i++) counts[labels[i] & 0xFF]++;
        return counts;
    }

    /** The pixel bytes, (size, rows, cols) row-major, shared with this object: read, do not write. */
    byte[] pixelBytes() { return pixels; }

    @Override
    public String toString() {
        return "LabeledImages(" + size + " images of " + rows + "x" + cols + ", " + classes() + " classes, from " + source + ")";
    }
}
