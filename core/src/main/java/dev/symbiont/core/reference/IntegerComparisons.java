package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.BinaryOp;

import java.util.Arrays;

/**
 * The exact comparison of int32/int64 host arrays: the reference kernel of
 * {@link dev.symbiont.core.backend.Backend#compare} and the host side of its default. Values are
 * compared as longs, never through float32, so ids past 2^24 stay distinct.
 */
public final class IntegerComparisons {
    private IntegerComparisons() {}

    /**
     * A float32 mask (1 where {@code a op b}) over the elements of two strided integer arrays of
     * the same shape, in row-major order.
     */
    public static float[] compare(BinaryOp op, Object a, DType aType, Layout aLayout, Object b, DType bType, Layout bLayout) {
        String name = "compare " + op.opName();
        if (!op.isComparison()) throw new IllegalArgumentException(name + ": not a comparison");
        if (!aType.isInteger() || !bType.isInteger()) {
            throw new IllegalArgumentException(name + ": expected int32 or int64 operands, got " + aType + " and " + bType);
        }
        if (!Arrays.equals(aLayout.shape(), bLayout.shape())) {
            throw new IllegalArgumentException(name + ": shapes " + Arrays.toString(aLayout.shape()) + " and "
                    + Arrays.toString(bLayout.shape()) + " differ");
        }
        int n = aLayout.numel();
        float[] out = new float[n];
        StridedWalker wa = new StridedWalker(aLayout), wb = new StridedWalker(bLayout);
        for (int i = 0; i < n; i++) {
            long x = ReferenceCopies.readLong(a, aType, wa.next()), y = ReferenceCopies.readLong(b, bType, wb.next());
            out[i] = holds(op, Long.compare(x, y)) ? 1f : 0f;
        }
        return out;
    }

    /** Whether the comparison holds for operands whose {@link Long#compare} is {@code order}. */
    private static boolean holds(BinaryOp op, int order) {
        return switch (op) {
            case EQ -> order == 0;
            case NE -> order != 0;
            case LT -> order < 0;
            case LE -> order <= 0;
            case GT -> order > 0;
            case GE -> order >= 0;
            default -> throw new AssertionError(op);
        };
    }
}
