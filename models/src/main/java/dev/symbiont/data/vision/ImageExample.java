package dev.symbiont.data.vision;

import dev.symbiont.core.Tensor;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One image after its transform, with its label.
 *
 * @param pixels (channels, rows, cols) float32 values, row-major
 * @param label  the class index
 */
public record ImageExample(float[] pixels, int channels, int rows, int cols, long label) {
    public ImageExample {
        Objects.requireNonNull(pixels, "pixels");
        if ((long) channels * rows * cols != pixels.length) {
            throw new IllegalArgumentException("image example: (" + channels + ", " + rows + ", " + cols + ") needs "
                    + (long) channels * rows * cols + " pixels, got " + pixels.length);
        }
    }

    /**
     * Stacks equal-shape examples into a batch.
     *
     * @return images: (batch, channels, rows, cols) float32, labels: (batch) int64
     */
    public static ImageBatch collate(List<ImageExample> examples) {
        if (examples.isEmpty()) throw new IllegalArgumentException("collate: no examples");
        ImageExample first = examples.getFirst();
        int n = examples.size(), per = first.pixels.length;
        float[] images = new float[n * per];
        long[] labels = new long[n];
        for (int b = 0; b < n; b++) {
            ImageExample e = examples.get(b);
            if (e.channels != first.channels || e.rows != first.rows || e.cols != first.cols) {
                throw new IllegalArgumentException("collate: example " + b + " is " + e.shapeString()
                        + " but example 0 is " + first.shapeString());
            }
            System.arraycopy(e.pixels, 0, images, b * per, per);
            labels[b] = e.label;
        }
        return new ImageBatch(Tensor.fromArray(images, n, first.channels, first.rows, first.cols), Tensor.fromArray(labels, n));
    }

    private String shapeString() { return "(" + channels + ", " + rows + ", " + cols + ")"; }

    // Records compare arrays by identity; examples are values, so compare contents.
    @Override
    public boolean equals(Object o) {
        return o instanceof ImageExample e && channels == e.channels && rows == e.rows && cols == e.cols && label == e.label
                && Arrays.equals(pixels, e.pixels);
    }

    @Override
    public int hashCode() { return Objects.hash(channels, rows, cols, label) * 31 + Arrays.hashCode(pixels); }

    @Override
    public String toString() { return "ImageExample" + shapeString() + "[label=" + label + "]"; }
}
