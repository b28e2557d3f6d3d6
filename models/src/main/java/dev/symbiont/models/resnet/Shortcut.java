package dev.symbiont.models.resnet;

import dev.symbiont.core.Generator;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.norm.BatchNorm2d;
import dev.symbiont.nn.conv.Conv2d;

/** The convolutions and shortcut of torchvision's ResNet blocks. */
final class Shortcut {
    private Shortcut() {}

    /** 3×3 conv with padding 1, no bias (a batch norm follows). */
    static Conv2d conv3x3(int in, int out, int stride, Generator g) {
        return new Conv2d(in, out, 3, Conv2d.options().stride(stride).padding(1).bias(false), g);
    }

    /** 1×1 conv, no bias. */
    static Conv2d conv1x1(int in, int out, int stride, Generator g) {
        return new Conv2d(in, out, 1, Conv2d.options().stride(stride).bias(false), g);
    }

    /**
     * The projection shortcut (He et al. 2016, eq. 2, option B) when a block changes the shape:
     * 1×1 conv and batch norm, keys {@code downsample.0}, {@code downsample.1}; null when the identity fits.
     */
    static Sequential projection(int in, int out, int stride, Generator g) {
        return stride == 1 && in == out ? null : new Sequential(conv1x1(in, out, stride, g), new BatchNorm2d(out));
    }
}
