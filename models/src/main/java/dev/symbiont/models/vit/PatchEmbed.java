package dev.symbiont.models.vit;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.conv.Conv2d;

import java.util.Arrays;

/**
 * The patch embedding of ViT (Dosovitskiy et al. 2021, eq. 1: x_p^i E): each P×P patch
 * flattened and projected to D, computed as one Conv2d with kernel = stride = P, as timm does.
 * Key {@code proj} (weight (D, C, P, P), bias (D)), PyTorch's default Conv2d initialisation.
 */
public final class PatchEmbed extends Layer {
    private final int imageSize, inChannels;
    private final Conv2d proj;

    public PatchEmbed(ViTConfig c, Generator g) {
        this.imageSize = c.imageSize();
        this.inChannels = c.inChannels();
        this.proj = module("proj", new Conv2d(c.inChannels(), c.embedDim(), c.patchSize(), Conv2d.options().stride(c.patchSize()), g));
    }

    /** x: (N, C, imageSize, imageSize) → (N, numPatches, D), patches in row-major order. */
    @Override
    public Tensor forward(Tensor x) {
        if (x.dim() != 4 || x.size(1) != inChannels || x.size(2) != imageSize || x.size(3) != imageSize) {
            throw new IllegalArgumentException("ViT: expected images of shape (N, " + inChannels + ", " + imageSize + ", " + imageSize
                    + "), got " + Arrays.toString(x.shape()));
        }
        return proj.forward(x).flatten(2, 3).transpose(1, 2);   // (N, D, g, g) → (N, g·g, D)
    }

    public Conv2d proj() { return proj; }
}
