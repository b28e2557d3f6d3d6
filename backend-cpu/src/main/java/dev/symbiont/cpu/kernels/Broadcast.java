package dev.symbiont.cpu.kernels;

import dev.symbiont.core.Layout;

/**
 * The operand shapes the fast binary kernels handle, each a rule from the output's row-major
 * position {@code i} to a storage index:
 * <ul>
 *   <li>{@link Kind#ROWS}: {@code offset + i % period} — a contiguous tensor (period = numel)
 *       or a contiguous block repeated over leading stride-0 dims, e.g. a bias (cols)
 *       expanded to (rows, cols);
 *   <li>{@link Kind#COLUMNS}: {@code offset + i / period} — each element repeated over
 *       trailing stride-0 dims, e.g. a row statistic (rows, 1) expanded to (rows, cols), or a
 *       scalar (period = numel).
 * </ul>
 * Any other layout ({@link #of} returns null) goes to the reference kernel.
 */
public record Broadcast(Kind kind, int offset, int period) {

    public enum Kind { ROWS, COLUMNS }

    /** The pattern of {@code layout}, or null when it is none of the handled ones (or empty). */
    public static Broadcast of(Layout layout) {
        int n = layout.numel();
        if (n == 0) return null;
        if (layout.isContiguous()) return new Broadcast(Kind.ROWS, layout.offset(), n);
        int[] sizes = new int[layout.rank()], strides = new int[layout.rank()];
        int k = 0;
        for (int d = 0; d < layout.rank(); d++) {
            if (layout.size(d) == 1) continue;
            sizes[k] = layout.size(d);
            strides[k++] = layout.stride(d);
        }
        // COLUMNS: trailing stride-0 dims over row-major leading dims.
        int t = k, repeat = 1;
        while (t > 0 && strides[t - 1] == 0) repeat *= sizes[--t];
        if (repeat > 1 && rowMajor(sizes, strides, 0, t)) return new Broadcast(Kind.COLUMNS, layout.offset(), repeat);
        // ROWS: row-major trailing dims under stride-0 leading dims.
        t = k;
        int period = 1;
        while (t > 0 && strides[t - 1] == period) period *= sizes[--t];
        for (int d = 0; d < t; d++) if (strides[d] != 0) return null;
        return new Broadcast(Kind.ROWS, layout.offset(), period);
    }

    /** True when dims {@code [from, to)} have the row-major strides of their own sizes. */
    private static boolean rowMajor(int[] sizes, int[] strides, int from, int to) {
        int expected = 1;
        for (int d = to - 1; d >= from; d--) {
            if (strides[d] != expected) return false;
            expected *= sizes[d];
        }
        return true;
    }

    /** Whether position {@code i}'s element stays the same for the rest of its run. */
    boolean constantRun() { return kind == Kind.COLUMNS; }

    /** How many positions from {@code i} on (at most {@code limit}) follow one run: consecutive, or one repeated element. */
    int run(int i, int limit) {
        return Math.min(limit, period - i % period);
    }

    /** Storage index of position {@code i}. */
    int index(int i) {
        return kind == Kind.ROWS ? offset + i % period : offset + i / period;
    }
}
