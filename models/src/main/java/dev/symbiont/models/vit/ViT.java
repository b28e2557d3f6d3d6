package dev.symbiont.models.vit;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.LayerNorm;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.ModuleList;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.Seed;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.MultiHeadAttention;
import dev.symbiont.nn.block.Mlp;
import dev.symbiont.nn.block.ResidualBlock;

import java.util.ArrayList;
import java.util.List;

/**
 * The Vision Transformer (Dosovitskiy et al. 2021, §3.1, eqs. 1–4), as timm's VisionTransformer
 * with a class token:
 * <pre>
 *   z₀ = [x_class; x_p¹E; …; x_pᴺE] + E_pos             patch_embed, cls_token, pos_embed     (eq. 1)
 *   z'_l = DropPath(MSA(LN(z_{l−1}))) + z_{l−1}          bidirectional, fused attention        (eq. 2)
 *   z_l = DropPath(MLP(LN(z'_l))) + z'_l                 GELU MLP                              (eq. 3)
 *   y = head(LN(z_L⁰))                                   the class token's output              (eq. 4)
 * </pre>
 * Each block is the Transformer family's pre-norm {@link ResidualBlock} over
 * {@link MultiHeadAttention} (fused qkv with biases) and timm's {@link Mlp}; LayerNorm ε = 1e-6.
 * Stochastic depth (Huang et al. 2016) as timm's: block l drops its branches with
 * {@code dropPathRate · l / (L − 1)} in training, none in eval; at rate 0 (the default) it is absent.
 * State-dict keys are timm's: {@code cls_token} (1, 1, D), {@code pos_embed} (1, 1 + numPatches, D),
 * {@code patch_embed.proj.*}, {@code blocks.<i>.norm1.*}, {@code blocks.<i>.attn.qkv.*},
 * {@code blocks.<i>.attn.proj.*}, {@code blocks.<i>.norm2.*}, {@code blocks.<i>.mlp.fc1.*},
 * {@code blocks.<i>.mlp.fc2.*}, {@code norm.*}, {@code head.*}.
 *
 * <p>Initialisation follows timm's default: pos_embed ~ N(0, 0.02²) truncated to ±2,
 * cls_token ~ N(0, 10⁻¹²), every Linear's weight ~ N(0, 0.02²) truncated and bias 0, the patch
 * projection as PyTorch's Conv2d, LayerNorms at 1 and 0.
 */
public final class ViT extends ImageClassifier {
    private static final double INIT_STD = 0.02, LN_EPS = 1e-6;

    private final ViTConfig config;
    private final Parameter clsToken, posEmbed;
    private final PatchEmbed patchEmbed;
    private final Dropout posDrop;
    private final ModuleList<ResidualBlock<MultiHeadAttention, Mlp>> blocks;
    private final LayerNorm norm;
    private final Linear head;

    /** A model drawn from the shared {@link Seed} generator. */
    public ViT(ViTConfig config) { this(config, Seed.generator()); }

    public ViT(ViTConfig config, Generator g) {
        this.config = config;
        int d = config.embedDim();
        this.clsToken = parameter("cls_token", Tensor.zeros(1, 1, d));
        this.posEmbed = parameter("pos_embed", Tensor.zeros(1, 1 + config.numPatches(), d));
        this.patchEmbed = module("patch_embed", new PatchEmbed(config, g));
        this.posDrop = module("pos_drop", new Dropout(config.dropout(), new Generator(g.nextLong())));
        BlockConfig attention = BlockConfig.of(d, config.heads(), config.mlpHidden()).withDropout(config.dropout());
        List<ResidualBlock<MultiHeadAttention, Mlp>> list = new ArrayList<>();
        for (int i = 0; i < config.depth(); i++) {
            list.add(new ResidualBlock<>(layerNorm(d), new MultiHeadAttention(attention, g), layerNorm(d),
                    new Mlp(d, config.mlpHidden(), config.dropout(), g)));
        }
        this.blocks = module("blocks", new ModuleList<>(list));
        this.norm = module("norm", layerNorm(d));
        this.head = module("head", new Linear(d, config.numClasses(), true, g));
        initialise(g);
        // Drawn after the weights, so a model's initialisation does not depend on its drop path rate.
        double[] rates = config.dropPathRates();
        for (int i = 0; i < rates.length; i++) list.get(i).dropPath(rates[i], g);
    }

    private static LayerNorm layerNorm(int d) { return new LayerNorm(new int[] {d}, LN_EPS, true); }

    private void initialise(Generator g) {
        posEmbed.update(Init.truncatedNormal(g, 0, INIT_STD, -2, 2, posEmbed.shape()));
        clsToken.update(Init.normal(g, 0, 1e-6, clsToken.shape()));
        for (Module m : modules()) {
            if (m instanceof Linear l) {
                l.weight().update(Init.truncatedNormal(g, 0, INIT_STD, -2, 2, l.weight().shape()));
                l.bias().update(Tensor.zeros(l.bias().shape()));
            }
        }
    }

    public ViTConfig config() { return config; }

    /**
     * The encoder's output tokens, normalised: timm's forward_features.
     *
     * @param x (N, inChannels, imageSize, imageSize) float32
     * @return (N, 1 + numPatches, D), the class token first
     */
    public Tensor forwardFeatures(Tensor x) {
        Tensor patches = patchEmbed.forward(x);                                      // (N, P, D)
        int n = patches.size(0), d = config.embedDim();
        Tensor cls = clsToken.value().expand(n, 1, d);                              // (N, 1, D)
        Tensor z = Tensor.cat(List.of(cls, patches), 1).add(posEmbed.value());      // (N, 1 + P, D), eq. 1
        z = posDrop.forward(z);
        for (ResidualBlock<MultiHeadAttention, Mlp> block : blocks) z = block.forward(z, null, false, null);   // eqs. 2–3
        return norm.forward(z);
    }

    /**
     * Class logits.
     *
     * @param x (N, inChannels, imageSize, imageSize) float32
     * @return (N, numClasses)
     */
    @Override
    public Tensor forward(Tensor x) {
        return head.forward(forwardFeatures(x).select(1, 0));                       // eq. 4, the class token
    }

    @Override
    public int inChannels() { return config.inChannels(); }

    @Override
    public int numClasses() { return config.numClasses(); }

    public ModuleList<ResidualBlock<MultiHeadAttention, Mlp>> blocks() { return blocks; }

    @Override
    protected String extraRepr() {
        return "image=" + config.imageSize() + ", patch=" + config.patchSize() + ", dim=" + config.embedDim() + ", depth=" + config.depth();
    }
}
