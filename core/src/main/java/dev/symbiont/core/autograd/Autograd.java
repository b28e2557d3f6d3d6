package dev.symbiont.core.autograd;

import dev.symbiont.core.Tensor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Records ops on the graph and runs reverse-mode differentiation over it. */
public final class Autograd {
    private Autograd() {}

    /**
     * Attaches a backward rule to {@code output} when grad mode is on and any input requires a
     * gradient; returns {@code output} either way, so ops can end with {@code return record(...)}.
     */
    public static Tensor record(String op, Tensor output, GradFn.BackwardRule rule, Tensor... inputs) {
        if (!GradMode.isEnabled()) return output;
        boolean any = false;
        for (Tensor t : inputs) any |= t != null && t.requiresGrad();
        if (!any) return output;
        output.attach(new GradFn(op, Collections.unmodifiableList(Arrays.asList(inputs.clone())), rule));
        return output;
    }

    /**
     * Back-propagates from {@code root}. With a null {@code gradOutput} the root must hold a
     * single element, whose gradient is 1.
     */
    public static void backward(Tensor root, Tensor gradOutput) {
        if (!root.requiresGrad()) {
            throw new IllegalStateException("backward: tensor of shape " + Arrays.toString(root.shape())
                    + " does not require grad and has no grad_fn");
        }
        if (gradOutput == null) {
            if (root.numel() != 1) {
                throw new IllegalArgumentException("backward: output has shape " + Arrays.toString(root.shape())
                        + "; backward() without a gradient needs a single-element output, so pass a gradient of that shape");
            }
            gradOutput = Tensor.onesLike(root);
        } else if (!Arrays.equals(gradOutput.shape(), root.shape())) {
            throw new IllegalArgumentException("backward: gradient shape " + Arrays.toString(gradOutput.shape())
                    + " differs from output shape " + Arrays.toString(root.shape()));
        } else if (gradOutput.dtype() != root.dtype() || gradOutput.backend() != root.backend()) {
            throw new IllegalArgumentException("backward: gradient is " + gradOutput.dtype() + " on " + gradOutput.backend().name()
                    + " but the output is " + root.dtype() + " on " + root.backend().name());
        }
        List<Tensor> order = topologicalOrder(root);
        Map<Tensor, Tensor> pending = new IdentityHashMap<>();
        pending.put(root, gradOutput.detach());
        try (var scope = GradMode.disabled()) {
            for (int i = order.size() - 1; i >= 0; i--) {
                Tensor node = order.get(i);
                Tensor grad = pending.remove(node);
                if (grad == null) continue;
                GradFn fn = node.gradFn();
                if (fn == null) {
                    node.accumulateGrad(grad);
                    continue;
                }
                Tensor[] inputGrads = fn.apply(grad);
                List<Tensor> inputs = fn.inputs();
                for (int j = 0; j < inputs.size(); j++) {
                    Tensor input = inputs.get(j);
                    if (input == null || !input.requiresGrad() || j >= inputGrads.length || inputGrads[j] == null) continue;
                    Tensor g = inputGrads[j];
                    if (!Arrays.equals(g.shape(), input.shape())) {
                        throw new IllegalStateException(fn + ": produced gradient of shape " + Arrays.toString(g.shape())
                                + " for input " + j + " of shape " + Arrays.toString(input.shape()));
                    }
                    pending.merge(input, g, Tensor::add);
                }
            }
        }
    }

    /** Nodes reachable from root through inputs that require grad, each after all its inputs. */
    private static List<Tensor> topologicalOrder(Tensor root) {
        List<Tensor> order = new ArrayList<>();
        Set<Tensor> visited = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {root, 0});
        visited.add(root);
        while (!stack.isEmpty()) {
            Object[] frame = stack.peek();
            Tensor t = (Tensor) frame[0];
            int next = (int) frame[1];
            List<Tensor> inputs = t.gradFn() == null ? List.of() : t.gradFn().inputs();
            if (next < inputs.size()) {
                frame[1] = next + 1;
                Tensor in = inputs.get(next);
                if (in != null && in.requiresGrad() && visited.add(in)) stack.push(new Object[] {in, 0});
            } else {
                stack.pop();
                order.add(t);
            }
        }
        return order;
    }
}
