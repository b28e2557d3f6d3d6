package dev.symbiont.data.vision;

import dev.symbiont.core.Generator;

import java.util.Arrays;

/**
 * What an {@link ImageDataset} does to each image, in torchvision's order and with its meaning:
 * {@code RandomCrop(size, padding)} (zero fill, the output as large as the input),
 * {@code RandomHorizontalFlip(p)}, {@code ToTensor()} (bytes to [0, 1]) and
 * {@code Normalize(mean, std)}. With padding 0 and flip probability 0 it is deterministic, the
 * evaluation transform.
 *
 * <p>The random draws, in order: the crop's top offset, its left offset (each uniform in
 * [0, 2·padding]), then whether to flip. They come from the generator passed in, which the
 * dataset derives from (seed, epoch, index).
 *
 * @param padding         zero pixels added on every side before cropping back to the image size
 * @param flipProbability chance of mirroring left to right, in [0, 1]
 * @param mean            subtracted after scaling to [0, 1]
 * @param std             divided by last, positive
 */
public record Augmentation(int padding, double flipProbability, float mean, float std) {
    public Augmentation {
        if (padding < 0) throw new IllegalArgumentException("Augmentation: padding must be >= 0, got " + padding);
        if (!(flipProbability >= 0 && flipProbability <= 1)) {
            throw new IllegalArgumentException("Augmentation: flipProbability must be in [0, 1], got " + flipProbability);
        }
        if (!(std > 0) || !Float.isFinite(std) || !Float.isFinite(mean)) {
            throw new IllegalArgumentException("Augmentation: mean must be finite and std positive, got " + mean + " and " + std);
        }
    }

    /** Normalisation only: the transform of a test split. */
    public static Augmentation normalizeOnly(float mean, float std) {
        return new Augmentation(0, 0, mean, std);
    }

    /** Random crop with {@code padding}, flip with probability 0.5, then normalisation. */
    public static Augmentation cropAndFlip(int padding, float mean, float std) {
        return new Augmentation(padding, 0.5, mean, std);
    }

    /** Whether the result depends on the random draws. */
    public boolean isRandom() { return padding > 0 || flipProbability > 0; }

    /** One image's random choices: the crop's top-left corner in the padded image, and whether to mirror. */
    public record Draw(int top, int left, boolean flip) {
        /** The identity: no shift, no flip (what padding 0 and flip probability 0 always draw). */
        public static final Draw NONE = new Draw(0, 0, false);
    }

    /** Draws one image's choices from {@code random}: top, then left, then the flip; NONE when not random. */
    public Draw draw(Generator random) {
        if (!isRandom()) return Draw.NONE;
        int top = random.nextInt(2 * padding + 1);
        int left = random.nextInt(2 * padding + 1);
        return new Draw(top, left, random.nextDouble() < flipProbability);
    }

    /**
     * Transforms one image with the choices {@code draw}.
     *
     * @param src (rows, cols) pixel bytes 0..255 starting at {@code srcOffset}
     * @param dst receives (rows, cols) normalised floats starting at {@code dstOffset}
     */
    public void apply(byte[] src, int srcOffset, int rows, int cols, Draw draw, float[] dst, int dstOffset) {
        if (draw.top < 0 || draw.top > 2 * padding || draw.left < 0 || draw.left > 2 * padding) {
            throw new IllegalArgumentException("Augmentation: crop corner (" + draw.top + ", " + draw.left
                    + ") is outside [0, " + 2 * padding + "] for padding " + padding);
        }
        float zero = (0f - mean) / std; // the padding is zero before ToTensor, as torchvision pads the image
        for (int y = 0; y < rows; y++) {
            int sy = y + draw.top - padding; // output row y of the crop is padded row y + top
            int out = dstOffset + y * cols;
            if (sy < 0 || sy >= rows) {
                Arrays.fill(dst, out, out + cols, zero);
                continue;
            }
            int in = srcOffset + sy * cols;
            for (int x = 0; x < cols; x++) {
                int sx = (draw.flip ? cols - 1 - x : x) + draw.left - padding; // flip after crop: read the crop mirrored
                dst[out + x] = sx < 0 || sx >= cols ? zero : ((src[in + sx] & 0xFF) / 255f - mean) / std;
            }
        }
    }
}
