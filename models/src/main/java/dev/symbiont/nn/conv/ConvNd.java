package dev.symbiont.nn.conv;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Parameter;

import java.util.Arrays;

/**
 * What {@link Conv1d} and {@link Conv2d} share (torch.nn's _ConvNd): the checks of their
 * arguments and PyTorch's default initialisation,
 * <pre>
 *   weight (out, in / groups, k...) ~ kaiming_uniform(a = √5) = U(±1/√fan_in),   fan_in = in / groups · Πk
 *   bias (out)                      ~ U(±1/√fan_in)
 * </pre>
 * drawn from the given generator (weight first, then bias), as {@link dev.symbiont.nn.Linear} does.
 */
public abstract sealed class ConvNd extends Layer permits Conv1d, Conv2d {
    private final int in, out, kernel;
    private final ConvOptions options;
    private final Parameter weight, bias;

    ConvNd(String name, int dims, int in, int out, int kernel, ConvOptions options, Generator g) {
        String layer = name + "(" + in + " → " + out + ", kernel " + kernel + ")";
        if (options == null) throw new IllegalArgumentException(layer + ": options must be given (start from " + name + ".options())");
        if (in <= 0 || out <= 0) throw new IllegalArgumentException(layer + ": channel counts must be positive");
        if (kernel <= 0) throw new IllegalArgumentException(layer + ": kernel size must be at least 1");
        if (options.stride() < 1) throw new IllegalArgumentException(layer + ": stride must be at least 1, got " + options.stride());
        if (options.padding() < 0) throw new IllegalArgumentException(layer + ": padding must be >= 0, got " + options.padding());
        if (options.dilation() < 1) throw new IllegalArgumentException(layer + ": dilation must be at least 1, got " + options.dilation());
        if (options.same() && options.stride() != 1) {
            throw new IllegalArgumentException(layer + ": padding 'same' needs stride 1, got stride " + options.stride());
        }
        int groups = options.groups();
        if (groups < 1) throw new IllegalArgumentException(layer + ": groups must be at least 1, got " + groups);
        if (in % groups != 0 || out % groups != 0) {
            throw new IllegalArgumentException(layer + ": groups = " + groups + " must divide in_channels " + in
                    + " and out_channels " + out);
        }
        this.in = in;
        this.out = out;
        this.kernel = kernel;
        this.options = options;
        int[] shape = new int[dims + 2];
        Arrays.fill(shape, kernel);
        shape[0] = out;
        shape[1] = in / groups;
        this.weight = parameter("weight", Init.kaimingUniform(g, Math.sqrt(5), shape));
        double bound = 1 / Math.sqrt(Init.fanIn(name, shape));
        this.bias = options.bias() ? parameter("bias", Init.uniform(g, -bound, bound, out)) : null;
    }

    public final Parameter weight() { return weight; }

    /** The bias, or null when built without one. */
    public final Parameter bias() { return bias; }

    public final int inChannels() { return in; }

    public final int outChannels() { return out; }

    public final int kernelSize() { return kernel; }

    public final ConvOptions settings() { return options; }

    /** The bias tensor or null, as the functional op takes it. */
    final Tensor biasValue() { return bias == null ? null : bias.value(); }

    @Override
    protected final String extraRepr() {
        ConvOptions o = options;
        return in + ", " + out + ", kernel_size=" + kernel + ", stride=" + o.stride() + ", padding=" + o.paddingText()
                + (o.dilation() != 1 ? ", dilation=" + o.dilation() : "") + (o.groups() != 1 ? ", groups=" + o.groups() : "")
                + ", bias=" + (bias != null);
    }
}
