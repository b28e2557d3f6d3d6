package dev.symbiont.models.convnext;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.ModuleList;
import dev.symbiont.nn.Seed;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.conv.Conv2d;
import dev.symbiont.nn.norm.LayerNorm2d;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * ConvNeXt (Liu et al. 2022, "A ConvNet for the 2020s"), as timm's ConvNeXt with the patchify stem:
 * <pre>
 *   h = LN2d(conv_{p×p, stride p}(x))                    stem: non-overlapping patches (§2.2)
 *   h = stage_s(h),  s = 0..S−1                           ConvNeXtStage: downsample, then blocks (Fig. 4)
 *   y = fc(LN2d(avgpool(h)))                              head
 * </pre>
 * A stage downsamples by 2 when s > 0, or when the stem's stride is 2 (timm's rule). Keys are
 * timm's: {@code stem.0.*} (Conv2d), {@code stem.1.*} (LayerNorm2d),
 * {@code stages.<s>.downsample.0|1.*}, {@code stages.<s>.blocks.<j>.{gamma, conv_dw, norm, mlp.fc1, mlp.fc2}},
 * {@code head.norm.*}, {@code head.fc.*}.
 *
 * <p>Initialisation is timm's: every Conv2d and Linear weight ~ N(0, 0.02²) truncated to ±2, biases 0;
 * norms at 1 and 0; layer scale γ at {@code layerScale}.
 */
public final class ConvNeXt extends ImageClassifier {
    private static final double INIT_STD = 0.02;

    private final ConvNeXtConfig config;
    private final Sequential stem;
    private final ModuleList<ConvNeXtStage> stages;
    private final ConvNeXtHead head;

    /** A model drawn from the shared {@link Seed} generator. */
    public ConvNeXt(ConvNeXtConfig config) { this(config, Seed.generator()); }

    public ConvNeXt(ConvNeXtConfig config, Generator g) {
        this.config = config;
        int[] dims = config.dims();
        int p = config.patchSize();
        this.stem = module("stem", new Sequential(new Conv2d(config.inChannels(), dims[0], p, Conv2d.options().stride(p), g),
                new LayerNorm2d(dims[0])));
        double[][] rates = config.dropPathRates();
        List<ConvNeXtStage> list = new ArrayList<>();
        int in = dims[0];
        for (int s = 0; s < config.stages(); s++) {
            int stride = s > 0 || p == 2 ? 2 : 1;
            list.add(new ConvNeXtStage(in, dims[s], stride, config.layerScale(), rates[s], g));
            in = dims[s];
        }
        this.stages = module("stages", new ModuleList<>(list));
        this.head = module("head", new ConvNeXtHead(in, config.numClasses(), g));
        initialise(g);
    }

    private void initialise(Generator g) {
        for (Module m : modules()) {
            if (m instanceof Conv2d c) {
                c.weight().update(Init.truncatedNormal(g, 0, INIT_STD, -2, 2, c.weight().shape()));
                c.bias().update(Tensor.zeros(c.bias().shape()));
            } else if (m instanceof Linear l) {
                l.weight().update(Init.truncatedNormal(g, 0, INIT_STD, -2, 2, l.weight().shape()));
                l.bias().update(Tensor.zeros(l.bias().shape()));
            }
        }
    }

    public ConvNeXtConfig config() { return config; }

    /**
     * The last stage's feature map, before the head.
     *
     * @param x (N, inChannels, H, W) float32
     * @return (N, dims[S−1], H', W'): H / patch, then halved (rounded down) by each downsampling stage
     */
    public Tensor forwardFeatures(Tensor x) {
        if (x.dim() != 4 || x.size(1) != config.inChannels()) {
            throw new IllegalArgumentException("ConvNeXt: expected images of shape (N, " + config.inChannels() + ", H, W), got "
                    + Arrays.toString(x.shape()));
        }
        Tensor h = stem.forward(x);
        for (ConvNeXtStage stage : stages) h = stage.forward(h);
        return h;
    }

    /**
     * Class logits.
     *
     * @param x (N, inChannels, H, W) float32
     * @return (N, numClasses)
     */
    @Override
    public Tensor forward(Tensor x) { return head.forward(forwardFeatures(x)); }

    @Override
    public int inChannels() { return config.inChannels(); }

    @Override
    public int numClasses() { return config.numClasses(); }

    @Override
    protected String extraRepr() { return "depths=" + Arrays.toString(config.depths()) + ", dims=" + Arrays.toString(config.dims()); }
}
