package dev.symbiont.nn.block;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Parameter;

import java.util.Arrays;
import java.util.List;

/**
 * A test-only sequence mixer whose decoding state is not a KV cache: a causal depthwise
 * convolution over the sequence (the short convolution in front of Mamba's scan, Gu and Dao
 * 2023, §3.4), y_t = Σ_{j<K} w_j ⊙ x_{t−j} with x_t = 0 before the first position. To continue a
 * sequence it keeps the last K − 1 inputs ({@link Window}): fixed-size, like Mamba's state.
 * Key {@code mixer}, weight (K, dModel).
 */
public final class CausalConvMixer extends SequenceMixer {
    private final int kernel, dModel;
    private final Parameter weight;

    public CausalConvMixer(int dModel, int kernel, Generator g) {
        this.kernel = kernel;
        this.dModel = dModel;
        this.weight = parameter("weight", Tensor.randn(g, kernel, dModel));
    }

    /** The last kernel − 1 inputs (batch, kernel − 1, dModel), or null before the first forward, and the positions seen. */
    public static final class Window implements MixerState {
        private Tensor last;
        private int length;

        @Override
        public int length() { return length; }

        @Override
        public void clear() {
            last = null;
            length = 0;
        }
    }

    /** x: (batch, seq, dModel) → (batch, seq, dModel); causal only, no mask. */
    @Override
    public Tensor forward(Tensor x, MixerContext context) {
        if (!context.causal() || context.mask() != null) {
            throw new IllegalArgumentException("CausalConvMixer: causal only and without a mask, got causal=" + context.causal()
                    + ", mask " + (context.mask() == null ? "none" : Arrays.toString(context.mask().shape())));
        }
        Window window = context.stateAs(Window.class, "CausalConvMixer");
        int batch = x.size(0), seq = x.size(1);
        Tensor past;
        if (window != null && window.last != null) {
            past = window.last;
        } else {
            try (var onX = Backends.use(x.backend())) {
                past = Tensor.zeros(batch, kernel - 1, dModel);
            }
        }
        Tensor padded = Tensor.cat(List.of(past, x), 1);                               // (batch, K − 1 + seq, dModel)
        Tensor y = null;
        for (int j = 0; j < kernel; j++) {
            Tensor term = padded.narrow(1, kernel - 1 - j, seq).mul(weight.value().select(0, j)); // w_j ⊙ x_{t−j}
            y = y == null ? term : y.add(term);
        }
        if (window != null) {
            window.last = padded.narrow(1, seq, kernel - 1).contiguous();
            window.length += seq;
        }
        return y;
    }

    @Override
    public Window newState(int maxLength) { return new Window(); }

    @Override
    public String blockKey() { return "mixer"; }

    @Override
    public List<Linear> residualProjections() { return List.of(); }
}
