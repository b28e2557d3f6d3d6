package dev.symbiont.core.reference;

import dev.symbiont.core.Layout;

/**
 * Visits the storage offsets of a {@link Layout} in row-major order, like an odometer: the
 * last dimension turns fastest and carries into the one before it. Costs O(1) amortised per
 * element instead of the divisions of {@link Layout#offsetOf(int)}.
 *
 * <pre>{@code
 * StridedWalker w = new StridedWalker(layout);
 * for (int i = 0; i < layout.numel(); i++) out[i] = data[w.next()];
 * }</pre>
 *
 * Two walkers over layouts of the same shape advance in lockstep, which is how every
 * reference kernel pairs up the elements of its operands.
 */
public final class StridedWalker {
    private final int[] shape;
    private final int[] strides;
    private final int[] index;
    private int current;
    private int remaining;

    public StridedWalker(Layout layout) {
        this.shape = layout.shape();
        this.strides = layout.strides();
        this.index = new int[shape.length];
        this.current = layout.offset();
        this.remaining = layout.numel();
    }

    /** True while {@link #next()} has offsets left to give. */
    public boolean hasNext() { return remaining > 0; }

    /** The storage offset of the next element in row-major order. */
    public int next() {
        if (remaining <= 0) throw new IllegalStateException("strided walker: no elements left");
        remaining--;
        int result = current;
        for (int d = shape.length - 1; d >= 0; d--) {
            if (++index[d] < shape[d]) {
                current += strides[d];
                return result;
            }
            current -= (shape[d] - 1) * strides[d];
            index[d] = 0;
        }
        return result;
    }

    /** All offsets of the layout in row-major order. */
    public static int[] offsets(Layout layout) {
        int[] out = new int[layout.numel()];
        StridedWalker w = new StridedWalker(layout);
        for (int i = 0; i < out.length; i++) out[i] = w.next();
        return out;
    }

    /**
     * The layout with the given dimensions collapsed to size 1 (strides kept): walking it gives
     * the base offset of every slice that runs along those dimensions.
     */
    public static Layout outer(Layout layout, int... dims) {
        int[] shape = layout.shape().clone();
        for (int d : dims) shape[d] = 1;
        return new Layout(shape, layout.strides().clone(), layout.offset());
    }

    /**
     * The layout keeping only the given dimensions (every other one collapsed to size 1) and
     * starting at 0: walking it gives each element's offset relative to its slice's base.
     */
    public static Layout inner(Layout layout, int... dims) {
        int[] shape = new int[layout.rank()];
        java.util.Arrays.fill(shape, 1);
        for (int d : dims) shape[d] = layout.size(d);
        return new Layout(shape, layout.strides().clone(), 0);
    }

    /** The multi-index of row-major position {@code linear} in {@code shape}, for error messages. */
    public static int[] unravel(int linear, int[] shape) {
        int[] pos = new int[shape.length];
        for (int d = shape.length - 1; d >= 0; d--) {
            if (shape[d] == 0) continue;
            pos[d] = linear % shape[d];
            linear /= shape[d];
        }
        return pos;
    }
}
