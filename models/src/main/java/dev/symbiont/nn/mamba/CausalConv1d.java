package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.nn.Init;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;

import java.util.Arrays;
import java.util.List;

/**
 * The short causal convolution in front of Mamba's scan (Gu &amp; Dao 2023, §3.4): depthwise
 * (one filter per channel, groups = channels), kernel K, K − 1 zeros of left padding, so
 * <pre>
 *   y_t = bias + Σ_{j &lt; K} w_j ⊙ x_{t−(K−1)+j}      x_t = 0 before the first position
 * </pre>
 * — {@code torch.nn.Conv1d(channels, channels, K, groups=channels, padding=K−1)} truncated to
 * the first L outputs, as Mamba calls it. Keys {@code weight} (channels, 1, K) and
 * {@code bias} (channels), initialised as PyTorch's Conv1d (U(±1/√K)).
 *
 * <p>Runs the conv family's conv1d ({@link Convolutions#conv1d}: on the CPU the direct depthwise
 * kernel) on the padded input. To continue a sequence it takes the K − 1 inputs before it ({@code past}).
 */
public final class CausalConv1d extends Module {
    private final int channels, kernel;
    private final Parameter weight, bias;

    public CausalConv1d(int channels, int kernel, Generator g) {
        if (channels <= 0 || kernel <= 0) {
            throw new IllegalArgumentException("CausalConv1d: channels and kernel must be positive, got " + channels + ", " + kernel);
        }
        this.channels = channels;
        this.kernel = kernel;
        double bound = 1 / Math.sqrt(kernel);
        this.weight = parameter("weight", Init.uniform(g, -bound, bound, channels, 1, kernel));
        this.bias = parameter("bias", Init.uniform(g, -bound, bound, channels));
    }

    public int kernel() { return kernel; }

    /**
     * @param x    (batch, channels, L), any strides
     * @param past null (zeros: the sequence starts here) or the K − 1 inputs before x, (batch, channels, K − 1)
     * @return (batch, channels, L)
     */
    public Tensor forward(Tensor x, Tensor past) {
        return forwardPadded(pad(x, past));
    }

    /**
     * x with the K − 1 inputs before it in front: (batch, channels, K − 1 + L). Its last K − 1
     * columns are the {@code past} of the positions that follow.
     *
     * @param x    (batch, channels, L)
     * @param past null (zeros) or (batch, channels, K − 1)
     */
    public Tensor pad(Tensor x, Tensor past) {
        if (x.dim() != 3 || x.size(1) != channels || past != null && !Arrays.equals(past.shape(),
                new int[] {x.size(0), channels, kernel - 1})) {
            throw new IllegalArgumentException("CausalConv1d(" + channels + ", kernel " + kernel + "): x must be (batch, "
                    + channels + ", L) and past (batch, " + channels + ", " + (kernel - 1) + "), got x "
                    + Arrays.toString(x.shape()) + ", past " + (past == null ? "none" : Arrays.toString(past.shape())));
        }
        return Tensor.cat(List.of(past == null ? zeros(x) : past, x), 2);
    }

    /** The convolution of an already left-padded input (batch, channels, K − 1 + L) → (batch, channels, L). */
    public Tensor forwardPadded(Tensor padded) {
        // depthwise (groups = channels), no padding of its own: y_t reads padded[t, t + K)
        return Convolutions.conv1d(padded, weight.value(), bias.value(), 1, 0, 1, channels);
    }

    private Tensor zeros(Tensor x) {
        try (var onX = Backends.use(x.backend())) {
            return Tensor.zeros(x.size(0), channels, kernel - 1);
        }
    }

    public Parameter weight() { return weight; }

    public Parameter bias() { return bias; }

    @Override
    protected String extraRepr() { return channels + ", kernel=" + kernel; }
}
