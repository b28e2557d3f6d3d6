package dev.symbiont.nn.block;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Linear;

import java.util.List;

/**
 * timm's {@code Mlp}, the channel mixer of ViT and ConvNeXt blocks:
 * <pre>
 *   y = Dropout(fc2(Dropout(GELU(fc1(x)))))          keys fc1, fc2
 * </pre>
 * GELU is the exact erf form (torch.nn.GELU's default). As a block's {@link ChannelMixer} its
 * key is {@code mlp}. (GPT-2's MLP, keys {@code fc}/{@code proj}, is
 * {@link dev.symbiont.nn.attention.FeedForward}.)
 */
public final class Mlp extends ChannelMixer {
    private final Linear fc1, fc2;
    private final Dropout drop1, drop2;

    /**
     * @param dim     input and output width
     * @param hidden  hidden width (4·dim in ViT and ConvNeXt)
     * @param dropout after the activation and after fc2, in [0, 1)
     */
    public Mlp(int dim, int hidden, double dropout, Generator g) {
        this.fc1 = module("fc1", new Linear(dim, hidden, true, g));
        this.fc2 = module("fc2", new Linear(hidden, dim, true, g));
        this.drop1 = module("drop1", new Dropout(dropout, new Generator(g.nextLong())));
        this.drop2 = module("drop2", new Dropout(dropout, new Generator(g.nextLong())));
    }

    /** x: (..., dim) → (..., dim). */
    @Override
    public Tensor forward(Tensor x) {
        return drop2.forward(fc2.forward(drop1.forward(fc1.forward(x).gelu())));
    }

    @Override
    public String blockKey() { return "mlp"; }

    @Override
    public List<Linear> residualProjections() { return List.of(fc2); }

    public Linear fc1() { return fc1; }

    public Linear fc2() { return fc2; }
}
