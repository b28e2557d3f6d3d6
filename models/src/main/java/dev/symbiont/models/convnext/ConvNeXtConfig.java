package dev.symbiont.models.convnext;

import dev.symbiont.nn.DropPath;

import java.util.Arrays;

/**
 * The shape of a {@link ConvNeXt} (Liu et al. 2022). timm's convnext_tiny is
 * {@link #convnextTiny()}; {@link #small28()} suits 28×28 grey images.
 *
 * @param inChannels    image channels (3 for RGB, 1 for grey)
 * @param numClasses    classifier outputs
 * @param depths        blocks per stage ({3, 3, 9, 3} for ConvNeXt-T)
 * @param dims          channels per stage ({96, 192, 384, 768} for ConvNeXt-T)
 * @param patchSize     the patchify stem's kernel and stride (4 in the paper)
 * @param layerScale    layer scale's initial γ (1e-6 in the paper), > 0
 * @param dropPathRate  stochastic depth of the last block; block k of K drops with rate · k / (K − 1), in [0, 1)
 */
public record ConvNeXtConfig(int inChannels, int numClasses, int[] depths, int[] dims, int patchSize, double layerScale,
                             double dropPathRate) {
    public ConvNeXtConfig {
        if (depths == null || dims == null || depths.length == 0 || depths.length != dims.length) {
            throw new IllegalArgumentException("ConvNeXtConfig: depths and dims must have one entry per stage, got "
                    + Arrays.toString(depths) + " and " + Arrays.toString(dims));
        }
        for (int i = 0; i < depths.length; i++) {
            if (depths[i] < 1 || dims[i] < 1) {
                throw new IllegalArgumentException("ConvNeXtConfig: depths and dims must be positive, got " + Arrays.toString(depths)
                        + " and " + Arrays.toString(dims));
            }
        }
        if (inChannels < 1 || numClasses < 1 || patchSize < 1) {
            throw new IllegalArgumentException("ConvNeXtConfig: inChannels, numClasses and patchSize must be positive, got "
                    + inChannels + ", " + numClasses + ", " + patchSize);
        }
        if (!(layerScale > 0)) throw new IllegalArgumentException("ConvNeXtConfig: layerScale must be > 0, got " + layerScale);
        if (!(dropPathRate >= 0 && dropPathRate < 1)) {
            throw new IllegalArgumentException("ConvNeXtConfig: dropPathRate must be in [0, 1), got " + dropPathRate);
        }
        depths = depths.clone();
        dims = dims.clone();
    }

    /** timm's convnext_tiny: depths {3, 3, 9, 3}, dims {96, 192, 384, 768}, patch 4, 3 channels, 1000 classes. */
    public static ConvNeXtConfig convnextTiny() {
        return new ConvNeXtConfig(3, 1000, new int[] {3, 3, 9, 3}, new int[] {96, 192, 384, 768}, 4, 1e-6, 0);
    }

    /**
     * For 28×28 grey images in 10 classes: depths {2, 2, 2, 2}, dims {32, 64, 128, 256} and a
     * stride-1 stem (patch 1), so the stages see 28, 14, 7 and 3 pixels a side (patch 4 would
     * leave nothing for the last stage).
     */
    public static ConvNeXtConfig small28() {
        return new ConvNeXtConfig(1, 10, new int[] {2, 2, 2, 2}, new int[] {32, 64, 128, 256}, 1, 1e-6, 0);
    }

    @Override
    public int[] depths() { return depths.clone(); }

    @Override
    public int[] dims() { return dims.clone(); }

    public int stages() { return depths.length; }

    public ConvNeXtConfig withInChannels(int c) { return new ConvNeXtConfig(c, numClasses, depths, dims, patchSize, layerScale, dropPathRate); }

    public ConvNeXtConfig withNumClasses(int n) { return new ConvNeXtConfig(inChannels, n, depths, dims, patchSize, layerScale, dropPathRate); }

    /** The same stages with other widths, one per stage (ResNetConfig.withWidths' counterpart). */
    public ConvNeXtConfig withDims(int... d) { return new ConvNeXtConfig(inChannels, numClasses, depths, d, patchSize, layerScale, dropPathRate); }

    public ConvNeXtConfig withDropPathRate(double r) { return new ConvNeXtConfig(inChannels, numClasses, depths, dims, patchSize, layerScale, r); }

    /**
     * Each block's drop rate, stage by stage: timm's {@code linspace(0, dropPathRate, Σ depths)}
     * split by depths.
     */
    public double[][] dropPathRates() {
        double[] all = DropPath.linearRates(dropPathRate, Arrays.stream(depths).sum());
        double[][] rates = new double[depths.length][];
        for (int s = 0, k = 0; s < depths.length; k += depths[s], s++) rates[s] = Arrays.copyOfRange(all, k, k + depths[s]);
        return rates;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConvNeXtConfig c && inChannels == c.inChannels && numClasses == c.numClasses && Arrays.equals(depths, c.depths)
                && Arrays.equals(dims, c.dims) && patchSize == c.patchSize && layerScale == c.layerScale && dropPathRate == c.dropPathRate;
    }

    @Override
    public int hashCode() { return 31 * Arrays.hashCode(depths) + Arrays.hashCode(dims) + inChannels + 7 * numClasses + patchSize; }

    @Override
    public String toString() {
        return "ConvNeXtConfig[inChannels=" + inChannels + ", numClasses=" + numClasses + ", depths=" + Arrays.toString(depths) + ", dims="
                + Arrays.toString(dims) + ", patchSize=" + patchSize + ", layerScale=" + layerScale + ", dropPathRate=" + dropPathRate + "]";
    }
}
