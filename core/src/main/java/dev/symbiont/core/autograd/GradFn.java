package dev.symbiont.core.autograd;

import dev.symbiont.core.Tensor;

/**
 * One recorded op: where the gradient of each input goes and the rule that turns the gradient
 * of its output into the gradients of its inputs (null for an input that needs none).
 *
 * <p>A node holds no non-leaf tensor itself — an input produced by another op is reached
 * through that op's node — so the graph keeps alive only what the backward rules save, as
 * in PyTorch. That is what lets activation checkpointing and autocast lower peak memory.
 */
public final class GradFn {
    private final String name;
    private final Edge[] edges;
    private final BackwardRule rule;

    GradFn(String name, Tensor[] inputs, BackwardRule rule) {
        this.name = name;
        this.rule = rule;
        this.edges = new Edge[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            Tensor in = inputs[i];
            if (in == null || !in.requiresGrad()) continue;
            edges[i] = in.gradFn() == null ? new Edge(in, null, in.shape()) : new Edge(null, in.gradFn(), in.shape());
        }
    }

    public String name() { return name; }

    /** Number of inputs the rule returns gradients for. */
    public int inputCount() { return edges.length; }

    Edge edge(int input) { return edges[input]; }

    Tensor[] apply(Tensor gradOutput) { return rule.backward(gradOutput); }

    @Override
    public String toString() { return name + "Backward"; }

    /**
     * Where one input's gradient goes: into a leaf tensor, or on to the node of the op that
     * produced the input. {@code shape} is the input's shape, to check the rule's result.
     */
    record Edge(Tensor leaf, GradFn node, int[] shape) {
        Object target() { return leaf != null ? leaf : node; }
    }

    /** Gradient of each input, in the order the inputs were recorded. */
    @FunctionalInterface
    public interface BackwardRule {
        Tensor[] backward(Tensor gradOutput);
    }
}
