package dev.symbiont.core.fused.attention;

import dev.symbiont.core.Layout;

import java.util.Arrays;

/** The layouts attention kernels give their results, shared by the backends' kernels. */
public final class AttentionLayouts {
    private AttentionLayouts() {}

    /**
     * A dense layout of a (batch, heads, seq, d) layout {@code l}'s shape whose dims lie in memory
     * in the order of {@code l}'s strides, the last dim innermost (PyTorch's {@code empty_like}
     * preserving the format): for a head-split view (batch, heads, seq, d) of a (batch, seq, heads·d)
     * tensor it is the same view of a fresh (batch, seq, heads, d) buffer, whose
     * {@code transpose(1, 2).reshape} back to (batch, seq, heads·d) is a view, not a copy.
     */
    public static Layout rowsLike(Layout l) {
        int[] shape = l.shape().clone();
        Integer[] order = {0, 1, 2}; // outermost first; ties keep the logical order
        Arrays.sort(order, (a, b) -> Integer.compare(l.stride(b), l.stride(a)));
        int[] strides = new int[4];
        int step = 1;
        strides[3] = 1;
        step *= Math.max(shape[3], 1);
        for (int i = 2; i >= 0; i--) {
            strides[order[i]] = step;
            step *= Math.max(shape[order[i]], 1);
        }
        return new Layout(shape, strides, 0);
    }
}
