package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.autograd.GradMode;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * Gradient (activation) checkpointing, as torch.utils.checkpoint: the forward runs without
 * recording, so none of its intermediate activations are kept; backward runs it again with
 * recording on and back-propagates through that copy. Peak memory drops to the segment's
 * inputs and outputs plus one segment's activations, for about one extra forward of compute.
 *
 * <p>Dropout masks and router jitter repeat exactly in the recomputation: the state of every
 * {@link Stochastic} module's generator
 * inside the module is saved before the forward and restored around the rerun.
 */
public final class Checkpoint {
    private Checkpoint() {}

    /**
     * Runs {@code fn} on {@code x} with checkpointing. {@code owner} is the module whose
     * parameters {@code fn} uses (they receive their gradients during the rerun).
     */
    public static Tensor run(Module owner, UnaryOperator<Tensor> fn, Tensor x) {
        List<Parameter> params = owner.trainableParameters();
        boolean anyGrad = x.requiresGrad() || !params.isEmpty();
        if (!GradMode.isEnabled() || !anyGrad) return fn.apply(x);
        List<Generator> generators = generators(owner);
        List<long[]> before = states(generators);
        Tensor y;
        try (var noGrad = GradMode.disabled()) {
            y = fn.apply(x.detach());
        }
        Tensor[] inputs = new Tensor[params.size() + 1];
        inputs[0] = x;
        for (int i = 0; i < params.size(); i++) inputs[i + 1] = params.get(i).value();
        // The rule returns only x's gradient: the rerun's own backward accumulates into the parameters.
        return Autograd.record("checkpoint", y.detach(), g -> {
            List<long[]> after = states(generators);
            restore(generators, before);
            Tensor input = x.detach().requiresGrad(x.requiresGrad());
            try (var grad = GradMode.enabled()) {
                Tensor again = fn.apply(input);
                again.backward(g);
            } finally {
                restore(generators, after);
            }
            Tensor[] grads = new Tensor[inputs.length];
            grads[0] = input.grad();
            return grads;
        }, inputs);
    }

    private static List<Generator> generators(Module owner) {
        List<Generator> out = new ArrayList<>();
        for (Module m : owner.modules()) if (m instanceof Stochastic s) out.add(s.generator());
        return out;
    }

    private static List<long[]> states(List<Generator> generators) {
        return generators.stream().map(Generator::state).toList();
    }

    private static void restore(List<Generator> generators, List<long[]> states) {
        for (int i = 0; i < generators.size(); i++) generators.get(i).setState(states.get(i));
    }
}
