package dev.symbiont.models.hf;

import dev.symbiont.models.CausalLM;

import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A Hugging Face model as Symbiont builds it.
 *
 * @param build    makes the model on the current backend (its weights still to be loaded)
 * @param keys     its state-dict keys as the checkpoint names them
 * @param optional checkpoint keys the model has that a file may leave out: a tied {@code lm_head.weight},
 *                 which, when present, must equal the embedding it is tied to
 * @param ignored  checkpoint keys that are buffers, not weights (GPT-2's causal-mask {@code attn.bias}):
 *                 read past, and not written back, as transformers does today
 * @param moduleNames the model's modules as transformers names them ({@code named_modules()}, which PEFT's
 *                 adapter keys follow); {@code keys} but for a file that leaves out a prefix the class has
 */
public record HfModelPlan(Supplier<CausalLM> build, KeyMap keys, Set<String> optional, Predicate<String> ignored, KeyMap moduleNames) {
    public HfModelPlan {
        optional = Set.copyOf(optional);
    }

    /** A plan whose checkpoint keys are the module names. */
    public HfModelPlan(Supplier<CausalLM> build, KeyMap keys, Set<String> optional, Predicate<String> ignored) {
        this(build, keys, optional, ignored, keys);
    }
}
