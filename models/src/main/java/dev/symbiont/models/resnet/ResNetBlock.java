package dev.symbiont.models.resnet;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.Layer;

/** The residual block of a {@link ResNet}: BasicBlock (ResNet-18/34) or Bottleneck (ResNet-50 and deeper). */
public enum ResNetBlock {
    BASIC(1), BOTTLENECK(4);

    private final int expansion;

    ResNetBlock(int expansion) { this.expansion = expansion; }

    /** Output channels per unit of width: 1 for BasicBlock, 4 for Bottleneck. */
    public int expansion() { return expansion; }

    /**
     * A block from {@code in} channels to width · expansion, its first 3×3 conv strided by {@code stride};
     * it gets a projection shortcut ({@code downsample}) when the shape changes.
     */
    public Layer create(int in, int width, int stride, Generator g) {
        return switch (this) {
            case BASIC -> new BasicBlock(in, width, stride, g);
            case BOTTLENECK -> new Bottleneck(in, width, stride, g);
        };
    }
}
