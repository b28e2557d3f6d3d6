package dev.symbiont.core.autograd;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.AllocationOrder;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

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
        output.attach(new GradFn(op, inputs, rule));
        return output;
    }

    /**
     * Records a two-output op (torch.autograd.Function returning two tensors): both outputs get
     * a node, and backward calls {@code rule} once with the gradients of both, so an op whose
     * second output is also consumed elsewhere (a residual stream) adds the two in its own pass.
     */
    public static void recordPair(String op, Tensor first, Tensor second, GradFn.PairRule rule, Tensor... inputs) {
        recordOutputs(op, new Tensor[] {first, second}, grads -> rule.backward(grads[0], grads[1]), inputs);
    }

    /**
     * Records an op with several outputs, as {@link #recordPair}: each output gets a node, and
     * backward calls {@code rule} once with one gradient per output (null for an output that fed
     * nothing the backward reached).
     */
    public static void recordOutputs(String op, Tensor[] outputs, GradFn.OutputsRule rule, Tensor... inputs) {
        if (!GradMode.isEnabled()) return;
        boolean any = false;
        for (Tensor t : inputs) any |= t != null && t.requiresGrad();
        if (!any) return;
        GradFn fn = new GradFn(op, inputs, outputs.length, rule);
        outputs[0].attach(fn);
        for (int i = 1; i < outputs.length; i++) outputs[i].attach(new GradFn(fn, i, outputs[i].shape()));
    }

    /**
     * Back-propagates from {@code root}, freeing each node's saved tensors once its rule has run
     * (a second backward through the same graph throws). With a null {@code gradOutput} the root
     * must hold a single element, whose gradient is 1.
     */
    public static void backward(Tensor root, Tensor gradOutput) { backward(root, gradOutput, false); }

    /**
     * {@link #backward(Tensor, Tensor)}; with {@code retainGraph} (PyTorch's {@code retain_graph})
     * every node keeps what it saved, so the graph can be back-propagated again.
     */
    public static void backward(Tensor root, Tensor gradOutput, boolean retainGraph) {
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
            throw new IllegalArgumentException("backward: gradient is " + gradOutput.dtype() + " on " + gradOutput.device()
                    + " but the output is " + root.dtype() + " on " + root.device());
        }
        // Profiled as the engine's own time (graph walk, bookkeeping) around one scope per rule,
        // named "<op>.backward" in the op's category; the ops a rule calls count under their names.
        try (var profile = Profiler.op("autograd.backward", OpCategory.OTHER)) {
            run(root, gradOutput, retainGraph);
        }
    }

    /**
     * The walk. A leaf may keep its gradient without a copy when the gradient's storage was made
     * during this pass and no pending gradient shares it (add's rule hands one tensor to both
     * inputs, a view rule hands on a view): {@code live} counts the pending gradients per storage.
     * The same test frees a gradient once its node has consumed it ({@link Consumed}).
     */
    private static void run(Tensor root, Tensor gradOutput, boolean retainGraph) {
        long passStart = AllocationOrder.current();
        Object rootNode = root.gradFn() != null ? root.gradFn() : root;
        List<Object> order = topologicalOrder(rootNode);
        Map<Object, Tensor> pending = new IdentityHashMap<>();
        Map<Storage, Integer> live = new IdentityHashMap<>();
        // Gradients of multi-output ops' later outputs, by output index, keyed by the first output's node.
        Map<GradFn, Tensor[]> pendingLater = new IdentityHashMap<>();
        Consumed consumed = new Consumed(passStart, live);
        List<Storage> freedAfterPass = new ArrayList<>();
        put(pending, live, rootNode, gradOutput.detach());
        try (var scope = GradMode.disabled()) {
            for (int i = order.size() - 1; i >= 0; i--) {
                Object node = order.get(i);
                Tensor grad = pending.remove(node);
                if (grad != null) unpend(live, grad);
                if (node instanceof Tensor leaf) {
                    if (grad != null) {
                        leaf.accumulateGrad(grad, consumed.exclusive(grad));
                        consumed.byLeaf(leaf, grad);
                        // every path into the leaf ran before it in the walk: its gradient of this pass is final
                        leaf.runPostAccumulateGradHooks();
                    }
                    consumed.releaseAll();
                    continue;
                }
                GradFn fn = (GradFn) node;
                if (fn.firstOutput() != null) {
                    // Ordered before its first output's node (it has an edge to it): hand the gradient on.
                    if (grad != null) {
                        Tensor[] later = pendingLater.computeIfAbsent(fn.firstOutput(), f -> new Tensor[f.outputs()]);
                        Tensor earlier = later[fn.outputIndex()];
                        if (earlier != null) unpend(live, earlier);
                        later[fn.outputIndex()] = earlier == null ? grad : consumed.sum(earlier, grad);
                        live.merge(later[fn.outputIndex()].storage(), 1, Integer::sum);
                    }
                    consumed.releaseAll();
                    continue;
                }
                Tensor[] grads = pendingLater.remove(fn);
                if (grads == null) {
                    if (grad == null) continue;
                    grads = new Tensor[fn.outputs()];
                }
                grads[0] = grad;
                for (int o = 1; o < grads.length; o++) if (grads[o] != null) unpend(live, grads[o]);
                Tensor[] inputGrads;
                try (var profile = Profiler.backward(fn.name())) {
                    inputGrads = fn.apply(grads);
                }
                if (!retainGraph) {
                    fn.freeSaved();
                    List<Storage> owned = fn.takeFreedAfterPass();
                    if (owned != null) freedAfterPass.addAll(owned);
                }
                for (Tensor g : grads) consumed.add(g);
                for (int j = 0; j < fn.inputCount() && j < inputGrads.length; j++) {
                    GradFn.Edge edge = fn.edge(j);
                    Tensor g = inputGrads[j];
                    if (edge == null || g == null) continue;
                    if (!Arrays.equals(g.shape(), edge.shape())) {
                        throw new IllegalStateException(fn + ": produced gradient of shape " + Arrays.toString(g.shape())
                                + " for input " + j + " of shape " + Arrays.toString(edge.shape()));
                    }
                    Tensor earlier = pending.get(edge.target());
                    if (earlier != null) unpend(live, earlier);
                    put(pending, live, edge.target(), earlier == null ? g : consumed.sum(earlier, g));
                }
                consumed.releaseAll(); // after every input gradient is pending: one may share a consumed storage
            }
            // every rule that could read them has run; a leaf's gradient is never one of them, but it stays if it were
            for (Storage s : freedAfterPass) if (!consumed.keptByLeaf(s)) s.release();
        }
    }

    /**
     * Gives {@code t}'s storage back to its backend once nothing can read it: now when no graph
     * is being recorded and t has no node, else after the first backward pass that runs t's node
     * without retaining the graph (every rule that saved t then has run). A tensor without a node
     * while a graph is recorded is left to the collector: a rule may have saved it with no node of
     * its own to follow. Only for buffers that nothing outside the graph reads — see {@link Intermediates}.
     */
    static void releaseWhenUnread(Tensor t) {
        GradFn fn = t.gradFn();
        if (fn != null) fn.releaseAfterPass(t.storage());
        else if (!GradMode.isEnabled()) t.storage().release();
    }

    /**
     * Gradients a node has used up, released once the node is done unless something may still
     * read them: only a storage made during this pass (nothing outside the pass can hold it), held
     * by no pending gradient, and not kept by a leaf as its {@code grad()}. Anything else is left
     * to the collector. PyTorch frees them the same way, by reference count.
     */
    private static final class Consumed {
        private final long passStart;
        private final Map<Storage, Integer> live;
        private final Set<Storage> keptByLeaves = Collections.newSetFromMap(new IdentityHashMap<>());
        private final List<Tensor> used = new ArrayList<>();

        Consumed(long passStart, Map<Storage, Integer> live) {
            this.passStart = passStart;
            this.live = live;
        }

        /** Made during this pass and shared with no pending gradient: a leaf may keep it without a copy. */
        boolean exclusive(Tensor grad) {
            return grad.storage().serial() >= passStart && !live.containsKey(grad.storage());
        }

        void add(Tensor grad) {
            if (grad != null) used.add(grad);
        }

        /**
         * earlier + g. Into earlier's own buffer when nothing else can read it (made during this pass,
         * pending nowhere else, kept by no leaf, dense float32 of g's shape), as PyTorch's engine
         * accumulates a node's input buffer: no new buffer for every fan-in of the graph (a residual
         * stream, q, k and v's shared input). Else out of place, both then used up.
         */
        Tensor sum(Tensor earlier, Tensor g) {
            used.add(g);
            if (exclusive(earlier) && !keptByLeaves.contains(earlier.storage()) && addsInPlace(earlier, g)) {
                try (var p = Profiler.op("add_", OpCategory.ELEMENTWISE, earlier.numel(), 12L * earlier.numel())) {
                    earlier.backend().addInto(earlier.storage(), earlier.layout(), g.storage(), g.layout());
                }
                return earlier;
            }
            used.add(earlier);
            return earlier.add(g);
        }

        private static boolean addsInPlace(Tensor into, Tensor g) {
            return into.dtype() == DType.FLOAT32 && g.dtype() == DType.FLOAT32 && into.backend() == g.backend()
                    && Arrays.equals(into.shape(), g.shape()) && into.storage() != g.storage()
                    && into.layout().coversWhole(into.storage().size());
        }

        boolean keptByLeaf(Storage s) { return keptByLeaves.contains(s); }

        /** A leaf was handed {@code grad}: it either kept the storage as its gradient or used it up. */
        void byLeaf(Tensor leaf, Tensor grad) {
            Tensor kept = leaf.grad();
            if (kept != null && kept.storage() == grad.storage()) keptByLeaves.add(grad.storage());
            else used.add(grad);
        }

        void releaseAll() {
            for (Tensor t : used) {
                Storage s = t.storage();
                if (s.serial() >= passStart && !live.containsKey(s) && !keptByLeaves.contains(s)) s.release();
            }
            used.clear();
        }
    }

    /** A gradient leaves the pending maps: its storage has one holder fewer. */
    private static void unpend(Map<Storage, Integer> live, Tensor grad) {
        live.computeIfPresent(grad.storage(), (s, n) -> n == 1 ? null : n - 1);
    }

    private static <K> void put(Map<K, Tensor> pending, Map<Storage, Integer> live, K node, Tensor grad) {
        pending.put(node, grad);
        live.merge(grad.storage(), 1, Integer::sum);
    }

    /** Nodes (ops and leaf tensors) reachable from root, each after all the nodes it feeds. */
    private static List<Object> topologicalOrder(Object root) {
        List<Object> order = new ArrayList<>();
        Set<Object> visited = Collections.newSetFromMap(new IdentityHashMap<>());
        ArrayDeque<Object[]> stack = new ArrayDeque<>();
        stack.push(new Object[] {root, 0});
        visited.add(root);
        while (!stack.isEmpty()) {
            Object[] frame = stack.peek();
            int next = (int) frame[1];
            if (frame[0] instanceof GradFn fn && next < fn.inputCount()) {
                frame[1] = next + 1;
                GradFn.Edge edge = fn.edge(next);
                if (edge != null && visited.add(edge.target())) stack.push(new Object[] {edge.target(), 0});
            } else {
                stack.pop();
                order.add(frame[0]);
            }
        }
        return order;
    }
}
