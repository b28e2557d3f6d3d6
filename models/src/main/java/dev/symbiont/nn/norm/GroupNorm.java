package dev.symbiont.nn.norm;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.norm.ChannelNorms;

/**
 * Group normalisation (Wu and He 2018), torch.nn.GroupNorm: the channels of x (N, C, *) form
 * numGroups groups of consecutive channels, each sample's group is normalised over its values,
 * then weight and bias (C; ones and zeros initially) scale and shift each channel. One group is
 * a layer norm over (C, *), C groups an instance norm. The same in training and eval.
 */
public final class GroupNorm extends ChannelNorm {
    private final int numGroups;

    /** eps 1e-5, affine. */
    public GroupNorm(int numGroups, int numChannels) { this(numGroups, numChannels, 1e-5, true); }

    public GroupNorm(int numGroups, int numChannels, double eps, boolean affine) {
        super(numChannels, eps, affine);
        if (numGroups < 1 || numChannels % numGroups != 0) {
            throw new IllegalArgumentException("GroupNorm: num_channels must be divisible by num_groups, got " + numChannels
                    + " channels and " + numGroups + " groups");
        }
        this.numGroups = numGroups;
    }

    /** x: (N, C, *) with C = numChannels → same shape. */
    @Override
    public Tensor forward(Tensor x) {
        checkChannels(x);
        return ChannelNorms.groupNorm(x, numGroups, weight(), bias(), eps);
    }

    @Override
    protected String extraRepr() { return numGroups + ", " + channels + ", eps=" + eps + ", affine=" + affine(); }
}
