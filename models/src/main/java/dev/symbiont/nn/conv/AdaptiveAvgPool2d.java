package dev.symbiont.nn.conv;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.conv.Pooling;
import dev.symbiont.nn.Layer;

/**
 * torch.nn.AdaptiveAvgPool2d: averages over PyTorch's windows to a fixed output size, whatever
 * the input's; {@code new AdaptiveAvgPool2d(1)} is the global average pool of ResNet and ConvNeXt.
 */
public final class AdaptiveAvgPool2d extends Layer {
    private final int outH, outW;

    public AdaptiveAvgPool2d(int size) { this(size, size); }

    public AdaptiveAvgPool2d(int outH, int outW) {
        if (outH < 1 || outW < 1) {
            throw new IllegalArgumentException("AdaptiveAvgPool2d: output size must be at least 1×1, got " + outH + "×" + outW);
        }
        this.outH = outH;
        this.outW = outW;
    }

    /** x: (N, C, H, W) → (N, C, outH, outW). */
    @Override
    public Tensor forward(Tensor x) { return Pooling.adaptiveAvgPool2d(x, outH, outW); }

    @Override
    protected String extraRepr() { return "output_size=(" + outH + ", " + outW + ")"; }
}
