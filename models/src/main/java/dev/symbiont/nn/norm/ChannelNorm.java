package dev.symbiont.nn.norm;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Parameter;

import java.util.Arrays;

/**
 * What the norm layers over dim 1 of (N, C, *) inputs share: the channel count C, eps, the
 * optional per-channel {@code weight} (ones) and {@code bias} (zeros), and the input check.
 */
public abstract class ChannelNorm extends Layer {
    protected final int channels;
    protected final double eps;
    private final Parameter weight, bias;

    protected ChannelNorm(int channels, double eps, boolean affine) {
        if (channels < 1) throw new IllegalArgumentException(getClass().getSimpleName() + ": channels must be positive, got " + channels);
        this.channels = channels;
        this.eps = eps;
        this.weight = affine ? parameter("weight", Tensor.ones(channels)) : null;
        this.bias = affine ? parameter("bias", Tensor.zeros(channels)) : null;
    }

    /** The weight's value (C), or null without affine parameters. */
    protected final Tensor weight() { return weight == null ? null : weight.value(); }

    /** The bias's value (C), or null without affine parameters. */
    protected final Tensor bias() { return bias == null ? null : bias.value(); }

    protected final boolean affine() { return weight != null; }

    /** Throws naming the layer and x's shape unless x has rank ≥ 2 and C channels in dim 1. */
    protected final void checkChannels(Tensor x) {
        if (x.dim() < 2 || x.size(1) != channels) {
            throw new IllegalArgumentException(getClass().getSimpleName() + ": expected " + channels
                    + " channels (dim 1) of an (N, C, *) input, got shape " + Arrays.toString(x.shape()));
        }
    }
}
