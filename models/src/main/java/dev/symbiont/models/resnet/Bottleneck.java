package dev.symbiont.models.resnet;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.norm.BatchNorm2d;
import dev.symbiont.nn.conv.Conv2d;

/**
 * ResNet's bottleneck block (He et al. 2016, Fig. 5 right), torchvision's Bottleneck ("ResNet
 * v1.5": the stride sits on the 3×3 conv, not the first 1×1):
 * <pre>
 *   y = ReLU(bn3(conv3(ReLU(bn2(conv2(ReLU(bn1(conv1(x)))))))) + shortcut(x))
 *   conv1 1×1 in → width,  conv2 3×3 strided,  conv3 1×1 width → 4·width
 * </pre>
 * Keys {@code conv1..3}, {@code bn1..3}, and {@code downsample.0|1} when the shape changes.
 */
public final class Bottleneck extends Layer {
    private final Conv2d conv1, conv2, conv3;
    private final BatchNorm2d bn1, bn2, bn3;
    private final Sequential downsample;

    public Bottleneck(int in, int width, int stride, Generator g) {
        int out = width * ResNetBlock.BOTTLENECK.expansion();
        this.conv1 = module("conv1", Shortcut.conv1x1(in, width, 1, g));
        this.bn1 = module("bn1", new BatchNorm2d(width));
        this.conv2 = module("conv2", Shortcut.conv3x3(width, width, stride, g));
        this.bn2 = module("bn2", new BatchNorm2d(width));
        this.conv3 = module("conv3", Shortcut.conv1x1(width, out, 1, g));
        this.bn3 = module("bn3", new BatchNorm2d(out));
        Sequential projection = Shortcut.projection(in, out, stride, g);
        this.downsample = projection == null ? null : module("downsample", projection);
    }

    /** x: (N, in, H, W) → (N, 4·width, H / stride, W / stride) (rounded up). */
    @Override
    public Tensor forward(Tensor x) {
        Tensor y = bn1.forward(conv1.forward(x)).relu();
        y = bn2.forward(conv2.forward(y)).relu();
        y = bn3.forward(conv3.forward(y));
        return y.add(downsample == null ? x : downsample.forward(x)).relu();
    }
}
