package dev.symbiont.nn.moe;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Linear;

/**
 * One expert: y = w2(SiLU(w1·x) ⊙ w3·x) (Shazeer 2020, eq. 6), no biases; keys {@code w1},
 * {@code w2}, {@code w3} as Mixtral's {@code experts.{e}}. {@link MoeFeedForward} runs all
 * experts at once through grouped GEMMs; {@link #forward} is the one-token-at-a-time twin.
 */
public final class SwiGluExpert extends Layer {
    final Linear w1, w2, w3;

    public SwiGluExpert(int dModel, int hidden, Generator g) {
        this.w1 = module("w1", new Linear(dModel, hidden, false, g));
        this.w2 = module("w2", new Linear(hidden, dModel, false, g));
        this.w3 = module("w3", new Linear(dModel, hidden, false, g));
    }

    /** x: (..., dModel) → (..., dModel). */
    @Override
    public Tensor forward(Tensor x) {
        return w2.forward(w1.forward(x).silu().mul(w3.forward(x)));
    }
}
