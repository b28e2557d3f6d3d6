package dev.symbiont.nn.conv;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.nn.Seed;

/**
 * A 1-D convolution layer, torch.nn.Conv1d: keys {@code weight} (out, in / groups, k) and
 * {@code bias} (out), initialised as PyTorch's ({@link ConvNd}), computed by the conv family's
 * fused op ({@link Convolutions#conv1d}).
 */
public final class Conv1d extends ConvNd {
    /** PyTorch's defaults (stride 1, padding 0, dilation 1, groups 1, bias), to change with its methods. */
    public static ConvOptions options() { return ConvOptions.DEFAULTS; }

    /** in → out channels, a kernel of k taps, PyTorch's defaults, drawn from the shared {@link Seed} generator. */
    public Conv1d(int in, int out, int kernel) { this(in, out, kernel, options(), Seed.generator()); }

    public Conv1d(int in, int out, int kernel, ConvOptions options, Generator g) {
        super("Conv1d", 1, in, out, kernel, options, g);
    }

    /** x: (N, in, L) → (N, out, L'), L' = floor((L + 2·padding − dilation·(k − 1) − 1) / stride) + 1 (L with "same"). */
    @Override
    public Tensor forward(Tensor x) {
        ConvOptions o = settings();
        return o.same()
                ? Convolutions.conv1d(x, weight().value(), biasValue(), 1, "same", o.dilation(), o.groups())
                : Convolutions.conv1d(x, weight().value(), biasValue(), o.stride(), o.padding(), o.dilation(), o.groups());
    }
}
