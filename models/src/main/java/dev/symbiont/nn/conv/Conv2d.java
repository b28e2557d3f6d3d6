package dev.symbiont.nn.conv;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.nn.Seed;

/**
 * A 2-D convolution layer, torch.nn.Conv2d with a square kernel:
 * <pre>
 *   y[n, o] = bias[o] + Σ_c weight[o, c] ⋆ x[n, group(o)·in/groups + c]
 * </pre>
 * Keys {@code weight} (out, in / groups, k, k) and {@code bias} (out), initialised as
 * PyTorch's ({@link ConvNd}). Computed by the conv family's fused op ({@link Convolutions#conv2d}),
 * which also checks the input against the weight.
 */
public final class Conv2d extends ConvNd {
    private static final int[] UNIT = {1};

    /** PyTorch's defaults (stride 1, padding 0, dilation 1, groups 1, bias), to change with its methods. */
    public static ConvOptions options() { return ConvOptions.DEFAULTS; }

    /** in → out channels, a k×k kernel, PyTorch's defaults, drawn from the shared {@link Seed} generator. */
    public Conv2d(int in, int out, int kernel) { this(in, out, kernel, options(), Seed.generator()); }

    public Conv2d(int in, int out, int kernel, ConvOptions options, Generator g) {
        super("Conv2d", 2, in, out, kernel, options, g);
    }

    /**
     * x: (N, in, H, W) → (N, out, H', W'), H' = floor((H + 2·padding − dilation·(k − 1) − 1) / stride) + 1
     * (H' = H with padding "same").
     */
    @Override
    public Tensor forward(Tensor x) {
        ConvOptions o = settings();
        int[] stride = {o.stride()}, dilation = {o.dilation()};
        return o.same()
                ? Convolutions.conv2d(x, weight().value(), biasValue(), UNIT, "same", dilation, o.groups())
                : Convolutions.conv2d(x, weight().value(), biasValue(), stride, new int[] {o.padding()}, dilation, o.groups());
    }
}
