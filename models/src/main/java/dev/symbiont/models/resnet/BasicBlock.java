package dev.symbiont.models.resnet;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.norm.BatchNorm2d;
import dev.symbiont.nn.conv.Conv2d;

/**
 * ResNet's basic block (He et al. 2016, Fig. 2), torchvision's BasicBlock:
 * <pre>
 *   y = ReLU(bn2(conv2(ReLU(bn1(conv1(x))))) + shortcut(x))       conv1 3×3 strided, conv2 3×3
 * </pre>
 * Keys {@code conv1}, {@code bn1}, {@code conv2}, {@code bn2}, and {@code downsample.0|1} when
 * the shape changes.
 */
public final class BasicBlock extends Layer {
    private final Conv2d conv1, conv2;
    private final BatchNorm2d bn1, bn2;
    private final Sequential downsample;

    public BasicBlock(int in, int width, int stride, Generator g) {
        this.conv1 = module("conv1", Shortcut.conv3x3(in, width, stride, g));
        this.bn1 = module("bn1", new BatchNorm2d(width));
        this.conv2 = module("conv2", Shortcut.conv3x3(width, width, 1, g));
        this.bn2 = module("bn2", new BatchNorm2d(width));
        Sequential projection = Shortcut.projection(in, width, stride, g);
        this.downsample = projection == null ? null : module("downsample", projection);
    }

    /** x: (N, in, H, W) → (N, width, H / stride, W / stride) (rounded up). */
    @Override
    public Tensor forward(Tensor x) {
        Tensor y = bn1.forward(conv1.forward(x)).relu();
        y = bn2.forward(conv2.forward(y));
        return y.add(downsample == null ? x : downsample.forward(x)).relu();
    }
}
