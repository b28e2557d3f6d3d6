package dev.symbiont.models.convnext;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.conv.Conv2d;
import dev.symbiont.nn.norm.LayerNorm2d;

import java.util.ArrayList;
import java.util.List;

/**
 * One ConvNeXt stage, as timm's ConvNeXtStage: a downsampling layer when the stride or width
 * changes (LayerNorm2d, then a 2×2 stride-2 conv: Liu et al. 2022, §2.6 "separate downsampling
 * layers"), then the stage's blocks. Keys {@code downsample.0} (LayerNorm2d),
 * {@code downsample.1} (Conv2d), {@code blocks.<j>}.
 */
public final class ConvNeXtStage extends Layer {
    private final Sequential downsample, blocks;

    /**
     * @param in        channels coming in
     * @param out       this stage's channels
     * @param stride    1 or 2; the downsampling conv's kernel and stride
     * @param dropPaths each block's stochastic-depth rate
     */
    public ConvNeXtStage(int in, int out, int stride, double layerScale, double[] dropPaths, Generator g) {
        Sequential ds = null;
        if (in != out || stride > 1) {
            ds = module("downsample", new Sequential(new LayerNorm2d(in),
                    new Conv2d(in, out, stride, Conv2d.options().stride(stride), g)));
        }
        this.downsample = ds;
        List<Layer> list = new ArrayList<>();
        for (double p : dropPaths) list.add(new ConvNeXtBlock(out, layerScale, p, g));
        this.blocks = module("blocks", new Sequential(list));
    }

    /** x: (N, in, H, W) → (N, out, H / stride, W / stride) (rounded down). */
    @Override
    public Tensor forward(Tensor x) {
        return blocks.forward(downsample == null ? x : downsample.forward(x));
    }
}
