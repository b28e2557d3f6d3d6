package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Half;
import dev.symbiont.core.Layout;

/**
 * Data movement for every dtype: strided copies, casts and fills over the host arrays behind
 * heap storages (float[] for float32, int[] for int32, long[] for int64, short[] bits for
 * bfloat16 and float16).
 */
final class ReferenceCopies {
    private ReferenceCopies() {}

    /** Moves one element from a source offset to a destination offset of two same-typed arrays. */
    @FunctionalInterface
    interface ElementMover {
        void move(int from, int to);
    }

    /** A mover between two arrays of the same Java type. */
    static ElementMover mover(Object src, Object dst) {
        return switch (src) {
            case float[] s -> { float[] d = (float[]) dst; yield (i, j) -> d[j] = s[i]; }
            case int[] s -> { int[] d = (int[]) dst; yield (i, j) -> d[j] = s[i]; }
            case long[] s -> { long[] d = (long[]) dst; yield (i, j) -> d[j] = s[i]; }
            case short[] s -> { short[] d = (short[]) dst; yield (i, j) -> d[j] = s[i]; }
            default -> throw new IllegalArgumentException("unsupported host array " + src.getClass().getSimpleName());
        };
    }

    /** A zero-filled host array of the dtype's Java type. */
    static Object newArray(DType dtype, int size) { return dev.symbiont.core.heap.BufferPool.newArray(dtype, size); }

    /** The layout's elements in row-major order as a new array of the same Java type. */
    static Object toContiguous(Object src, DType dtype, Layout layout) {
        Object out = newArray(dtype, layout.numel());
        copyStrided(src, layout, out, Layout.contiguous(layout.shape()));
        return out;
    }

    /** dst[dstLayout] = src[srcLayout], element by element in row-major order; same shape and Java type. */
    static void copyStrided(Object src, Layout srcLayout, Object dst, Layout dstLayout) {
        int n = srcLayout.numel();
        StridedWalker s = new StridedWalker(srcLayout);
        StridedWalker d = new StridedWalker(dstLayout);
        switch (src) {
            case float[] a -> { float[] b = (float[]) dst; for (int i = 0; i < n; i++) b[d.next()] = a[s.next()]; }
            case int[] a -> { int[] b = (int[]) dst; for (int i = 0; i < n; i++) b[d.next()] = a[s.next()]; }
            case long[] a -> { long[] b = (long[]) dst; for (int i = 0; i < n; i++) b[d.next()] = a[s.next()]; }
            case short[] a -> { short[] b = (short[]) dst; for (int i = 0; i < n; i++) b[d.next()] = a[s.next()]; }
            default -> throw new IllegalArgumentException("unsupported host array " + src.getClass().getSimpleName());
        }
    }

    /**
     * Converts the layout's elements to {@code to}, in row-major order. Integers go through
     * long, floating types through float: float to int truncates toward zero (NaN gives 0, out
     * of range saturates), int64 to int32 wraps, halves round to nearest even.
     */
    static Object cast(Object src, DType from, Layout layout, DType to) {
        if (from == to) return toContiguous(src, from, layout);
        int n = layout.numel();
        Object out = newArray(to, n);
        StridedWalker w = new StridedWalker(layout);
        if (from.isInteger()) {
            for (int i = 0; i < n; i++) writeLong(out, to, i, readLong(src, from, w.next()));
        } else {
            for (int i = 0; i < n; i++) writeFloat(out, to, i, readFloat(src, from, w.next()));
        }
        return out;
    }

    /** {@code size} copies of {@code value} converted to the dtype the way {@link #cast} would. */
    static Object full(DType dtype, int size, double value) {
        Object out = newArray(dtype, size);
        switch (out) {
            case float[] a -> java.util.Arrays.fill(a, (float) value);
            case int[] a -> java.util.Arrays.fill(a, (int) value);
            case long[] a -> java.util.Arrays.fill(a, (long) value);
            case short[] a -> java.util.Arrays.fill(a, dtype == DType.BFLOAT16
                    ? Half.floatToBf16((float) value) : Half.floatToF16((float) value));
            default -> throw new AssertionError(out);
        }
        return out;
    }

    /** One element of a floating array as float32. */
    static float readFloat(Object array, DType dtype, int offset) {
        return switch (dtype) {
            case FLOAT32 -> ((float[]) array)[offset];
            case BFLOAT16 -> Half.bf16ToFloat(((short[]) array)[offset]);
            case FLOAT16 -> Half.f16ToFloat(((short[]) array)[offset]);
            case INT32 -> ((int[]) array)[offset];
            case INT64 -> ((long[]) array)[offset];
        };
    }

    /** One element of an integer array as long. */
    static long readLong(Object array, DType dtype, int offset) {
        return switch (dtype) {
            case INT32 -> ((int[]) array)[offset];
            case INT64 -> ((long[]) array)[offset];
            default -> (long) readFloat(array, dtype, offset);
        };
    }

    /** True when the element is not zero (NaN counts as non-zero, like bool(nan) in Python). */
    static boolean isNonZero(Object array, DType dtype, int offset) {
        return dtype.isInteger() ? readLong(array, dtype, offset) != 0 : readFloat(array, dtype, offset) != 0f;
    }

    private static void writeFloat(Object out, DType to, int i, float v) {
        switch (to) {
            case FLOAT32 -> ((float[]) out)[i] = v;
            case INT32 -> ((int[]) out)[i] = (int) v;
            case INT64 -> ((long[]) out)[i] = (long) v;
            case BFLOAT16 -> ((short[]) out)[i] = Half.floatToBf16(v);
            case FLOAT16 -> ((short[]) out)[i] = Half.floatToF16(v);
        }
    }

    private static void writeLong(Object out, DType to, int i, long v) {
        switch (to) {
            case INT32 -> ((int[]) out)[i] = (int) v;
            case INT64 -> ((long[]) out)[i] = v;
            default -> writeFloat(out, to, i, (float) v);
        }
    }
}
