package dev.symbiont.models.convnext;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.norm.LayerNorm2d;

/**
 * ConvNeXt's classifier head, as timm's NormMlpClassifierHead without a hidden layer: global
 * average pool, LayerNorm2d, flatten, fc. Keys {@code norm}, {@code fc}.
 */
public final class ConvNeXtHead extends Layer {
    private final LayerNorm2d norm;
    private final Linear fc;

    public ConvNeXtHead(int features, int numClasses, Generator g) {
        this.norm = module("norm", new LayerNorm2d(features));
        this.fc = module("fc", new Linear(features, numClasses, true, g));
    }

    /** x: (N, C, H, W) → (N, numClasses). */
    @Override
    public Tensor forward(Tensor x) {
        return fc.forward(norm.forward(x.adaptiveAvgPool2d(1, 1)).flatten(1, 3));
    }
}
