package dev.symbiont.models.resnet;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.conv.Conv2d;
import dev.symbiont.nn.conv.MaxPool2d;

/**
 * The layers of a {@link ResNet} before its first stage: {@code conv1} (keys {@code conv1.weight}),
 * then {@code bn1} and ReLU, then an optional max-pool (no keys), so every stem has torchvision's keys.
 */
public enum ResNetStem {
    /** torchvision's: 7×7 conv stride 2, 3×3 stride-2 max-pool; a 224×224 image reaches layer1 at 56×56. */
    IMAGENET(4),
    /** The CIFAR one: 3×3 conv stride 1, no pool; a 28×28 image reaches layer1 at 28×28. */
    SMALL(1),
    /** 3×3 conv stride 1, then torchvision's 3×3 stride-2 max-pool; a 28×28 image reaches layer1 at 14×14, a quarter of SMALL's work. */
    SMALL_POOLED(2);

    private final int reduction;

    ResNetStem(int reduction) { this.reduction = reduction; }

    /** How much the stem shrinks each side of the image (rounding up). */
    public int reduction() { return reduction; }

    /** {@code conv1}: image channels to the first stage's width, without bias (bn1 follows). */
    Conv2d conv(int inChannels, int width, Generator g) {
        return this == IMAGENET
                ? new Conv2d(inChannels, width, 7, Conv2d.options().stride(2).padding(3).bias(false), g)
                : new Conv2d(inChannels, width, 3, Conv2d.options().padding(1).bias(false), g);
    }

    /** The max-pool after bn1 and ReLU, or null. */
    MaxPool2d pool() { return this == SMALL ? null : new MaxPool2d(3, 2, 1); }
}
