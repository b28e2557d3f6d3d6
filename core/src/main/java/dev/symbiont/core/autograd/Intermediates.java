package dev.symbiont.core.autograd;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.AllocationOrder;
import dev.symbiont.core.backend.Storage;

import java.util.ArrayList;
import java.util.List;

/**
 * The tensors a computation makes for its own use — a block's normalised input, its projections,
 * its hidden activations — given back to the backend's buffer pool as soon as nothing can read
 * them, as PyTorch's reference counts free them. A JVM array is otherwise reclaimed only by the
 * collector, so every step would allocate (and zero) its activations afresh instead of reusing
 * last step's, which are still in cache. Without a graph they go back when the computation ends;
 * with one, when the first backward pass that runs their nodes without retaining the graph is
 * over (every rule that saved them has run by then).
 *
 * <pre>
 *   Intermediates temps = Intermediates.begin();
 *   Tensor h = temps.add(fc.forward(x));
 *   return temps.releaseAfter(proj.forward(h));
 * </pre>
 *
 * <p>Only for tensors nothing outside the computation reads: not its input, not a parameter, not
 * a cache or any other state it keeps, not anything it hands out besides the result. Guarded
 * anyway: a tensor whose storage is older than {@link #begin} (a layer that passed its input
 * through) or is the result's own (a view of it) is never released.
 */
public final class Intermediates {
    private final long since = AllocationOrder.current();
    private final List<Tensor> tensors = new ArrayList<>();

    private Intermediates() {}

    /** Starts a computation: only storages made from here on can be released by it. */
    public static Intermediates begin() { return new Intermediates(); }

    /** Marks {@code t} as read by this computation only; returns it. */
    public Tensor add(Tensor t) {
        tensors.add(t);
        return t;
    }

    /**
     * An op's buffer that only its own backward rule reads (a derivative saved in the forward):
     * released after the first backward pass that runs {@code output}'s node without retaining
     * the graph. Nothing happens when the op recorded no node.
     */
    public static void savedOnlyBy(Tensor output, Tensor saved) {
        GradFn fn = output.gradFn();
        if (fn != null && saved != null) fn.releaseAfterPass(saved.storage());
    }

    /** Ends the computation with {@code result}: each intermediate is released now or after backward (see above); returns result. */
    public Tensor releaseAfter(Tensor result) {
        Storage kept = result.storage();
        for (Tensor t : tensors) {
            Storage s = t.storage();
            if (s != kept && s.serial() >= since) Autograd.releaseWhenUnread(t);
        }
        tensors.clear();
        return result;
    }
}
