package dev.symbiont.nn;

import dev.symbiont.core.Tensor;

/**
 * A term added to a {@link Linear}'s output, y = x Wᵀ + b + adapter(x): what a low-rank adapter
 * (LoRA, {@link dev.symbiont.peft.LoraAdapter}) attaches to a frozen projection. Attached with
 * {@link Linear#attach}, it is a transparent child of the Linear: its parameters are named under
 * the Linear's own key ({@code attn.q_proj.lora_A.weight}), as PEFT names them. An adapter whose
 * term has been folded into the Linear's weight ({@link #merged()}) is not added again.
 */
public abstract class LinearAdapter extends Module {
    /**
     * The term added to the Linear's output.
     *
     * @param x (..., in), the Linear's input
     * @return (..., out)
     */
    public abstract Tensor delta(Tensor x);

    /** Whether the term is folded into the Linear's weight, so that the Linear does not add it. */
    public abstract boolean merged();
}
