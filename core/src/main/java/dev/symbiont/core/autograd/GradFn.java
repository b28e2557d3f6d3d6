package dev.symbiont.core.autograd;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Storage;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

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
    /** Null once a backward has run it without retaining the graph: what it saved is then free. */
    private OutputsRule rule;
    /** For a later output of a multi-output op: the node of its first output, which runs the rule. */
    private final GradFn firstOutput;
    /** This output's place among its op's outputs (0 for the first); the first's node holds the count. */
    private final int outputIndex, outputs;
    /**
     * Storages given back once a backward pass that ran this node without retaining the graph ends
     * (null: none). Held weakly: one that no rule saved is the collector's as soon as the forward
     * drops it, so the graph keeps no more memory alive than before.
     */
    private List<WeakReference<Storage>> freedAfterPass;

    GradFn(String name, Tensor[] inputs, BackwardRule rule) {
        this(name, inputs, 1, grads -> rule.backward(grads[0]));
    }

    GradFn(String name, Tensor[] inputs, int outputs, OutputsRule rule) {
        this.name = name;
        this.rule = rule;
        this.firstOutput = null;
        this.outputIndex = 0;
        this.outputs = outputs;
        this.edges = new Edge[inputs.length];
        for (int i = 0; i < inputs.length; i++) {
            Tensor in = inputs[i];
            if (in == null || !in.requiresGrad()) continue;
            edges[i] = in.gradFn() == null ? new Edge(in, null, in.shape()) : new Edge(null, in.gradFn(), in.shape());
        }
    }

    /** The node of output {@code index} ≥ 1 of a multi-output op: its gradient goes to {@code first}'s rule. */
    GradFn(GradFn first, int index, int[] shape) {
        this.name = first.name;
        this.rule = null;
        this.firstOutput = first;
        this.outputIndex = index;
        this.outputs = first.outputs;
        this.edges = new Edge[] {new Edge(null, first, shape)};
    }

    public String name() { return name; }

    /** The first output's node when this is a later output of a multi-output op, else null. */
    GradFn firstOutput() { return firstOutput; }

    /** This output's index among its op's outputs. */
    int outputIndex() { return outputIndex; }

    /** How many outputs the op has (1 for most). */
    int outputs() { return outputs; }

    /** Number of inputs the rule returns gradients for. */
    public int inputCount() { return edges.length; }

    Edge edge(int input) { return edges[input]; }

    /** One gradient per output of the op (null where that output got none, not all). */
    Tensor[] apply(Tensor[] gradOutputs) {
        OutputsRule r = rule;
        if (r == null) {
            throw new IllegalStateException(this + ": trying to backward through the graph a second time; its saved tensors "
                    + "were freed when the first backward ran it. Pass retainGraph = true to the first backward() to keep them");
        }
        return r.backward(gradOutputs);
    }

    /**
     * Drops the rule, and with it every tensor the rule saved, as PyTorch frees saved tensors once
     * backward has used them: from here only other holders keep them alive.
     */
    void freeSaved() { rule = null; }

    /**
     * Releases {@code storage} when a backward pass that ran this node's rule without retaining
     * the graph is over: for a buffer only this part of the graph reads (an intermediate
     * activation, a derivative the rule saved for itself). Later outputs of a multi-output op
     * hand it to the node of their first output, which runs the rule.
     */
    void releaseAfterPass(Storage storage) {
        if (firstOutput != null) {
            firstOutput.releaseAfterPass(storage);
            return;
        }
        if (freedAfterPass == null) freedAfterPass = new ArrayList<>(2);
        freedAfterPass.add(new WeakReference<>(storage));
    }

    /** The storages {@link #releaseAfterPass} gathered that are still alive, handed over once (null when none). */
    List<Storage> takeFreedAfterPass() {
        if (freedAfterPass == null) return null;
        List<Storage> alive = new ArrayList<>(freedAfterPass.size());
        for (WeakReference<Storage> ref : freedAfterPass) {
            Storage s = ref.get();
            if (s != null) alive.add(s);
        }
        freedAfterPass = null;
        return alive;
    }

    @Override
    public String toString() { return name + "Backward"; }

    /**
     * Where one input's gradient goes: into a leaf tensor, or on to the node of the op that
     * produced the input. {@code shape} is the input's shape, to check the rule's result.
     */
    record Edge(Tensor leaf, GradFn node, int[] shape) {
        Object target() { return leaf != null ? leaf : node; }
    }

    /**
     * Gradient of each input, in the order the inputs were recorded. {@code gradOutput} is valid
     * during the call only: autograd releases a gradient it made once every rule has used it, so a
     * rule that keeps one for later keeps a copy.
     */
    @FunctionalInterface
    public interface BackwardRule {
        Tensor[] backward(Tensor gradOutput);
    }

    /**
     * Gradient of each input of a two-output op from the gradients of both outputs; either may be
     * null (that output fed nothing the backward reached), not both.
     */
    @FunctionalInterface
    public interface PairRule {
        Tensor[] backward(Tensor gradFirst, Tensor gradSecond);
    }

    /**
     * Gradient of each input of an op with several outputs, from one gradient per output; any may
     * be null (that output fed nothing the backward reached), not all.
     */
    @FunctionalInterface
    public interface OutputsRule {
        Tensor[] backward(Tensor[] gradOutputs);
    }
}
