package dev.symbiont.nn.mamba;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.block.MixerContext;

import java.util.Arrays;

/** The checks both Mamba mixers make of their input: causal, no mask, (batch, L, dModel). */
final class MixerInputs {
    private MixerInputs() {}

    static void check(String mixer, Tensor u, MixerContext context, int dModel) {
        if (!context.causal() || context.mask() != null) {
            throw new IllegalArgumentException(mixer + ": a recurrence is causal and takes no mask, got causal="
                    + context.causal() + ", mask " + (context.mask() == null ? "none" : Arrays.toString(context.mask().shape())));
        }
        if (u.dim() != 3 || u.size(2) != dModel) {
            throw new IllegalArgumentException(mixer + ": input must be (batch, L, " + dModel + "), got " + Arrays.toString(u.shape()));
        }
    }
}
