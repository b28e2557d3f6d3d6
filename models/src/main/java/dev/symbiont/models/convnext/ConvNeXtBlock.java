package dev.symbiont.models.convnext;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.DropPath;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.LayerNorm;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.block.Mlp;
import dev.symbiont.nn.conv.Conv2d;

/**
 * The ConvNeXt block (Liu et al. 2022, Fig. 4 right), as timm's ConvNeXtBlock with a
 * channels-last MLP:
 * <pre>
 *   h = dwconv7×7(x)                                    depthwise, padding 3          (N, C, H, W)
 *   h = fc2(GELU(fc1(LN(h))))                           per pixel, channels last, 4C hidden
 *   y = x + DropPath(γ ⊙ h)                             layer scale γ (C), stochastic depth
 * </pre>
 * Keys {@code gamma} (C), {@code conv_dw} (C, 1, 7, 7), {@code norm} (LayerNorm, ε = 1e-6),
 * {@code mlp.fc1}, {@code mlp.fc2}.
 */
public final class ConvNeXtBlock extends Layer {
    private final Parameter gamma;
    private final Conv2d convDw;
    private final LayerNorm norm;
    private final Mlp mlp;
    private final DropPath dropPath;

    /**
     * @param dim        channels C
     * @param layerScale γ's initial value (1e-6 in the paper)
     * @param dropPath   this block's stochastic-depth rate, in [0, 1)
     */
    public ConvNeXtBlock(int dim, double layerScale, double dropPath, Generator g) {
        this.gamma = parameter("gamma", Tensor.full(layerScale, dim));
        this.convDw = module("conv_dw", new Conv2d(dim, dim, 7, Conv2d.options().padding(3).groups(dim), g));
        this.norm = module("norm", new LayerNorm(new int[] {dim}, 1e-6, true));
        this.mlp = module("mlp", new Mlp(dim, 4 * dim, 0, g));
        this.dropPath = module("drop_path", new DropPath(dropPath, new Generator(g.nextLong())));
    }

    /** x: (N, C, H, W) → (N, C, H, W). */
    @Override
    public Tensor forward(Tensor x) {
        Tensor h = convDw.forward(x).permute(0, 2, 3, 1);                              // (N, H, W, C)
        h = mlp.forward(norm.forward(h)).mul(gamma.value());                            // γ broadcasts over the last dim
        return x.add(dropPath.forward(h.permute(0, 3, 1, 2)));                          // back to (N, C, H, W)
    }
}
