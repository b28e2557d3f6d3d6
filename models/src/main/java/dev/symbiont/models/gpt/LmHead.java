package dev.symbiont.models.gpt;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.Parameter;

/**
 * The output head: logits = h Wᵀ with W (vocab, dModel), no bias. It takes its weight as a
 * {@link Parameter} so that it can be the token embedding's (weight tying: one parameter,
 * saved under both {@code tok_emb.weight} and {@code lm_head.weight}, as in PyTorch).
 */
public final class LmHead extends Layer {
    private final Parameter weight;

    public LmHead(Parameter weight) {
        if (weight.shape().length != 2) throw new IllegalArgumentException("LmHead: weight must be (vocab, dModel), got " + weight);
        this.weight = parameter("weight", weight);
    }

    /** h: (..., dModel) → (..., vocab), a bias-free {@link Linears#linear} (W's rows read in place). */
    @Override
    public Tensor forward(Tensor h) { return Linears.linear(h, weight.value(), null); }

    public Parameter weight() { return weight; }
}
