package dev.symbiont.models.resnet;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Seed;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.norm.BatchNorm2d;
import dev.symbiont.nn.conv.Conv2d;
import dev.symbiont.nn.conv.MaxPool2d;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A residual network (He et al. 2016, Table 1) with torchvision's structure and state-dict keys:
 * <pre>
 *   h = maxpool(ReLU(bn1(conv1(x))))         7×7 stride 2, 3×3 stride-2 pool   (small images: 3×3 stride 1, pool or none; ResNetStem)
 *   h = layer4(layer3(layer2(layer1(h))))    stages of residual blocks; layer2..4 halve H and W
 *   y = fc(avgpool(h))                       global average, then the classifier
 * </pre>
 * Keys: {@code conv1.weight}, {@code bn1.{weight,bias,running_mean,running_var,num_batches_tracked}},
 * {@code layer<s>.<i>.conv1.weight}, {@code layer<s>.<i>.bn1.*}, …, {@code layer<s>.0.downsample.0.weight},
 * {@code layer<s>.0.downsample.1.*}, {@code fc.weight}, {@code fc.bias} — resnet18's list equals
 * torchvision's, key for key and shape for shape.
 *
 * <p>Initialisation is torchvision's: every conv weight ~ N(0, 2 / fan_out) (kaiming_normal_,
 * mode fan_out, ReLU gain), batch norms at weight 1 and bias 0, fc as PyTorch's Linear default.
 * Batch norms use batch statistics in {@link #train()} mode and their running ones in {@link #eval()}.
 */
public final class ResNet extends ImageClassifier {
    private final ResNetConfig config;
    private final Conv2d conv1;
    private final BatchNorm2d bn1;
    private final MaxPool2d maxpool;
    private final List<Sequential> stages = new ArrayList<>();
    private final Linear fc;

    /** A model drawn from the shared {@link Seed} generator. */
    public ResNet(ResNetConfig config) { this(config, Seed.generator()); }

    public ResNet(ResNetConfig config, Generator g) {
        this.config = config;
        int[] widths = config.widths(), layers = config.layers();
        this.conv1 = module("conv1", config.stem().conv(config.inChannels(), widths[0], g));
        this.bn1 = module("bn1", new BatchNorm2d(widths[0]));
        this.maxpool = config.stem().pool();
        int in = widths[0];
        for (int s = 0; s < 4; s++) {
            List<Layer> blocks = new ArrayList<>();
            for (int i = 0; i < layers[s]; i++) {
                int stride = s > 0 && i == 0 ? 2 : 1;
                blocks.add(config.block().create(in, widths[s], stride, g));
                in = widths[s] * config.block().expansion();
            }
            stages.add(module("layer" + (s + 1), new Sequential(blocks)));
        }
        this.fc = module("fc", new Linear(config.features(), config.numClasses(), true, g));
        initialise(g);
    }

    private void initialise(Generator g) {
        for (Module m : modules()) {
            if (m instanceof Conv2d c) {
                int[] shape = c.weight().shape();
                c.weight().update(Init.normal(g, 0, Math.sqrt(2.0 / Init.fanOut(shape)), shape));
            }
        }
    }

    public ResNetConfig config() { return config; }

    /**
     * The last stage's feature map, before pooling.
     *
     * @param x (N, inChannels, H, W) float32
     * @return (N, widths[3] · expansion, H / (8 · stem reduction), W / (8 · stem reduction)), sizes rounded up
     */
    public Tensor forwardFeatures(Tensor x) {
        if (x.dim() != 4 || x.size(1) != config.inChannels()) {
            throw new IllegalArgumentException("ResNet: expected images of shape (N, " + config.inChannels() + ", H, W), got "
                    + Arrays.toString(x.shape()));
        }
        Tensor h = bn1.forward(conv1.forward(x)).relu();
        if (maxpool != null) h = maxpool.forward(h);
        for (Sequential stage : stages) h = stage.forward(h);
        return h;
    }

    /**
     * Class logits.
     *
     * @param x (N, inChannels, H, W) float32
     * @return (N, numClasses)
     */
    @Override
    public Tensor forward(Tensor x) {
        Tensor h = forwardFeatures(x);
        return fc.forward(h.adaptiveAvgPool2d(1, 1).flatten(1, 3));                  // (N, C, 1, 1) → (N, C) → logits
    }

    @Override
    public int inChannels() { return config.inChannels(); }

    @Override
    public int numClasses() { return config.numClasses(); }

    /** Stage s (1 to 4): {@code layer<s>}. */
    public Sequential layer(int s) { return stages.get(s - 1); }

    @Override
    protected String extraRepr() { return config.block() + ", layers=" + Arrays.toString(config.layers()); }
}
