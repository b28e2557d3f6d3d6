package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.autograd.GradMode;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
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
 *
 * <p><b>Side outputs.</b> A module inside a segment may produce scalars besides the segment's
 * output that the caller adds to its loss (an MoE router's auxiliary losses); it hands them out
 * through {@link #sideOutputs}. In the first forward they have no history, so the segment gives
 * each a node of its own after its output's node: the gradient the loss sends it is kept, and the
 * rerun back-propagates it through the rerun's copy of the scalar together with the output's
 * gradient. The gradient thus carries whatever scale the caller gave its loss (1/accumulation, a
 * float16 loss scale), as it would without checkpointing. The rerun hands nothing out, so a
 * module's recorded losses and metrics are the first forward's, counted once.
 */
public final class Checkpoint {
    private Checkpoint() {}

    /** The segment whose forward or rerun is running on this thread, if any. */
    private static final ThreadLocal<Segment> CURRENT = new ThreadLocal<>();

    /**
     * Hands out side outputs of a module's forward (scalars a loss adds, such as auxiliary
     * losses): outside a checkpointed segment {@code sink} gets {@code values} at once; in a
     * segment's first forward it gets, once the segment's output exists, tensors of the same
     * values whose gradients reach the rerun; in the rerun {@code sink} is not called.
     */
    public static void sideOutputs(List<Tensor> values, Consumer<List<Tensor>> sink) {
        Segment segment = CURRENT.get();
        if (segment == null) {
            sink.accept(values);
            return;
        }
        segment.values.addAll(values);
        if (!segment.rerun) segment.sinks.add(new Sink(values.size(), sink));
    }

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
        Segment first = new Segment(false);
        Tensor y;
        try (var noGrad = GradMode.disabled(); var segment = first.enter()) {
            y = fn.apply(x.detach());
        }
        Tensor[] inputs = new Tensor[params.size() + 1];
        inputs[0] = x;
        for (int i = 0; i < params.size(); i++) inputs[i + 1] = params.get(i).value();
        Tensor[] sideGrads = new Tensor[first.values.size()];
        // The rule returns only x's gradient: the rerun's own backward accumulates into the parameters.
        Tensor out = Autograd.record("checkpoint", y.detach(), g -> {
            List<long[]> after = states(generators);
            restore(generators, before);
            Tensor input = x.detach().requiresGrad(x.requiresGrad());
            Segment rerun = new Segment(true);
            try (var grad = GradMode.enabled()) {
                Tensor again;
                try (var segment = rerun.enter()) {
                    again = fn.apply(input);
                }
                withSideOutputs(again, rerun.values, sideGrads).backward(g);
            } finally {
                restore(generators, after);
                java.util.Arrays.fill(sideGrads, null);
            }
            Tensor[] grads = new Tensor[inputs.length];
            grads[0] = input.grad();
            return grads;
        }, inputs);
        first.handOut(out, sideGrads);
        return out;
    }

    /**
     * {@code again}, tied to the rerun's side outputs that received a gradient: one backward
     * from the result sends {@code g} to {@code again} and each kept gradient to its side output.
     */
    private static Tensor withSideOutputs(Tensor again, List<Tensor> values, Tensor[] sideGrads) {
        if (values.size() != sideGrads.length) {
            throw new IllegalStateException("checkpoint: the rerun handed out " + values.size() + " side outputs, the forward "
                    + sideGrads.length);
        }
        List<Tensor> inputs = new ArrayList<>(List.of(again));
        List<Tensor> grads = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            if (sideGrads[i] == null || !values.get(i).requiresGrad()) continue;
            inputs.add(values.get(i));
            grads.add(sideGrads[i]);
        }
        if (grads.isEmpty()) return again;
        return Autograd.record("checkpoint_side_outputs", again.detach(), g -> {
            Tensor[] out = new Tensor[inputs.size()];
            out[0] = g;
            for (int i = 0; i < grads.size(); i++) out[i + 1] = grads.get(i);
            return out;
        }, inputs.toArray(Tensor[]::new));
    }

    /** What a module handed out during one forward or rerun of a segment. */
    private static final class Segment {
        final boolean rerun;
        final List<Tensor> values = new ArrayList<>();
        final List<Sink> sinks = new ArrayList<>();

        Segment(boolean rerun) { this.rerun = rerun; }

        /** Makes this the thread's current segment until the returned scope closes. */
        Scope enter() {
            Segment outer = CURRENT.get();
            CURRENT.set(this);
            return () -> CURRENT.set(outer);
        }

        /**
         * Gives each side output a node after the segment's output {@code out} (so backward reaches
         * it before the segment's rerun), which keeps its gradient in {@code grads}, and hands the
         * nodes to the sinks.
         */
        void handOut(Tensor out, Tensor[] grads) {
            int at = 0;
            for (Sink sink : sinks) {
                List<Tensor> nodes = new ArrayList<>(sink.count);
                for (int i = 0; i < sink.count; i++, at++) {
                    int slot = at;
                    nodes.add(Autograd.record("checkpoint_side_output", values.get(slot).detach(), g -> {
                        // kept past this rule, so a copy: autograd releases the gradients it made once used
                        grads[slot] = grads[slot] == null ? g.clone() : grads[slot].add(g);
                        return new Tensor[1]; // nothing for the segment's output: its own gradient comes from the loss
                    }, out));
                }
                sink.consumer.accept(nodes);
            }
        }
    }

    private record Sink(int count, Consumer<List<Tensor>> consumer) {}

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
