package dev.symbiont.nn.norm;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.norm.ChannelNorms;

/**
 * Layer norm over the channels of a channels-first image x (N, C, H, W) at every (n, h, w):
 * timm's LayerNorm2d, as ConvNeXt uses it between stages (Liu et al. 2022). Keys {@code weight}
 * and {@code bias} (C), ones and zeros initially. One fused op on the channels-first layout
 * ({@link ChannelNorms#layerNormOverChannels}); the result is contiguous (N, C, *).
 */
public final class LayerNorm2d extends ChannelNorm {

    /** eps 1e-6 (timm's default), affine. */
    public LayerNorm2d(int numChannels) { this(numChannels, 1e-6, true); }

    public LayerNorm2d(int numChannels, double eps, boolean affine) {
        super(numChannels, eps, affine);
    }

    /** x: (N, C, *) with C = numChannels → same shape. */
    @Override
    public Tensor forward(Tensor x) {
        checkChannels(x);
        return ChannelNorms.layerNormOverChannels(x, weight(), bias(), eps);
    }

    @Override
    protected String extraRepr() { return "(" + channels + ",), eps=" + eps + ", elementwise_affine=" + affine(); }
}
