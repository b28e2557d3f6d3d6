package dev.symbiont.models.resnet;

import java.util.Arrays;

/**
 * The shape of a {@link ResNet} (He et al. 2016, Table 1). torchvision's resnet18/34/50 are
 * {@link #resnet18()}, {@link #resnet34()}, {@link #resnet50()}; {@link #forSmallImages()} swaps
 * the ImageNet stem for the CIFAR-style one (3×3 conv, stride 1, no max-pool) that suits
 * 28×28 or 32×32 images; {@link #withStem} picks any {@link ResNetStem}.
 *
 * @param block       BasicBlock (two 3×3 convs) or Bottleneck (1×1, 3×3, 1×1, 4× expansion)
 * @param layers      blocks in each of the four stages ({2, 2, 2, 2} for ResNet-18)
 * @param widths      channels of each stage's 3×3 convs ({64, 128, 256, 512} in the paper); the stem has widths[0]
 * @param inChannels  image channels (3 for RGB, 1 for grey)
 * @param numClasses  classifier outputs
 * @param stem        the layers before layer1: ImageNet's 7×7 stride 2 and max-pool, or a 3×3 stride-1 conv for small images
 */
public record ResNetConfig(ResNetBlock block, int[] layers, int[] widths, int inChannels, int numClasses, ResNetStem stem) {
    public ResNetConfig {
        if (block == null || stem == null) throw new IllegalArgumentException("ResNetConfig: block and stem must be given");
        if (layers == null || widths == null || layers.length != 4 || widths.length != 4) {
            throw new IllegalArgumentException("ResNetConfig: layers and widths must have 4 entries, got " + Arrays.toString(layers)
                    + " and " + Arrays.toString(widths));
        }
        for (int i = 0; i < 4; i++) {
            if (layers[i] < 1 || widths[i] < 1) {
                throw new IllegalArgumentException("ResNetConfig: layers and widths must be positive, got " + Arrays.toString(layers)
                        + " and " + Arrays.toString(widths));
            }
        }
        if (inChannels < 1 || numClasses < 1) {
            throw new IllegalArgumentException("ResNetConfig: inChannels and numClasses must be positive, got " + inChannels + ", " + numClasses);
        }
        layers = layers.clone();
        widths = widths.clone();
    }

    private static final int[] PAPER_WIDTHS = {64, 128, 256, 512};

    /** ResNet-18: BasicBlock, {2, 2, 2, 2}, ImageNet stem, 3 channels, 1000 classes. */
    public static ResNetConfig resnet18() { return new ResNetConfig(ResNetBlock.BASIC, new int[] {2, 2, 2, 2}, PAPER_WIDTHS, 3, 1000, ResNetStem.IMAGENET); }

    /** ResNet-34: BasicBlock, {3, 4, 6, 3}. */
    public static ResNetConfig resnet34() { return new ResNetConfig(ResNetBlock.BASIC, new int[] {3, 4, 6, 3}, PAPER_WIDTHS, 3, 1000, ResNetStem.IMAGENET); }

    /** ResNet-50: Bottleneck, {3, 4, 6, 3}; stages output 256, 512, 1024, 2048 channels. */
    public static ResNetConfig resnet50() { return new ResNetConfig(ResNetBlock.BOTTLENECK, new int[] {3, 4, 6, 3}, PAPER_WIDTHS, 3, 1000, ResNetStem.IMAGENET); }

    /**
     * For 28×28 grey images in 10 classes (Fashion-MNIST) on a CPU: a ResNet-10 (one BasicBlock per
     * stage) of widths 24, 48, 96, 192 behind the pooled small-image stem, so the stages see 14, 7, 4
     * and 2 pixels a side. At equal training time on 2 cores it beats the quarter-width small-image
     * ResNet-18 (docs/log/benchmarks-log.md, "Choosing the Fashion-MNIST ResNet").
     */
    public static ResNetConfig small28() {
        return new ResNetConfig(ResNetBlock.BASIC, new int[] {1, 1, 1, 1}, new int[] {24, 48, 96, 192}, 1, 10, ResNetStem.SMALL_POOLED);
    }

    @Override
    public int[] layers() { return layers.clone(); }

    @Override
    public int[] widths() { return widths.clone(); }

    /** This config with the 3×3 stride-1 stem and no max-pool ({@link ResNetStem#SMALL}). */
    public ResNetConfig forSmallImages() { return withStem(ResNetStem.SMALL); }

    public ResNetConfig withStem(ResNetStem s) { return new ResNetConfig(block, layers, widths, inChannels, numClasses, s); }

    public ResNetConfig withInChannels(int c) { return new ResNetConfig(block, layers, widths, c, numClasses, stem); }

    public ResNetConfig withNumClasses(int n) { return new ResNetConfig(block, layers, widths, inChannels, n, stem); }

    /** Other stage widths, e.g. {16, 32, 64, 128} for a quarter-width model that trains fast on a CPU. */
    public ResNetConfig withWidths(int... w) { return new ResNetConfig(block, layers, w, inChannels, numClasses, stem); }

    /** Other blocks per stage, e.g. {1, 1, 1, 1} for a ResNet-10. */
    public ResNetConfig withLayers(int... l) { return new ResNetConfig(block, l, widths, inChannels, numClasses, stem); }

    /** Channels the classifier sees: widths[3] · expansion. */
    public int features() { return widths[3] * block.expansion(); }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResNetConfig c && block == c.block && Arrays.equals(layers, c.layers) && Arrays.equals(widths, c.widths)
                && inChannels == c.inChannels && numClasses == c.numClasses && stem == c.stem;
    }

    @Override
    public int hashCode() { return 31 * Arrays.hashCode(layers) + Arrays.hashCode(widths) + block.hashCode() + 7 * stem.hashCode() + inChannels + numClasses; }

    @Override
    public String toString() {
        return "ResNetConfig[" + block + ", layers=" + Arrays.toString(layers) + ", widths=" + Arrays.toString(widths) + ", inChannels="
                + inChannels + ", numClasses=" + numClasses + ", stem=" + stem + "]";
    }
}
