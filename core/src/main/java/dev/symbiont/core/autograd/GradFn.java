package dev.symbiont.core.autograd;

import dev.symbiont.core.Tensor;

import java.util.List;

/**
 * One recorded op: its inputs and the rule that turns the gradient of its output into the
 * gradients of its inputs (null for an input that needs none).
 */
public final class GradFn {
    private final String name;
    private final List<Tensor> inputs;
    private final BackwardRule rule;

    public GradFn(String name, List<Tensor> inputs, BackwardRule rule) {
        this.name = name;
        this.inputs = inputs;
        this.rule = rule;
    }

    public String name() { return name; }

    public List<Tensor> inputs() { return inputs; }

    Tensor[] apply(Tensor gradOutput) { return rule.backward(gradOutput); }

    @Override
    public String toString() { return name + "Backward"; }

    /** Gradient of each input, in the order of {@link #inputs()}. */
    @FunctionalInterface
    public interface BackwardRule {
        Tensor[] backward(Tensor gradOutput);
    }
}
