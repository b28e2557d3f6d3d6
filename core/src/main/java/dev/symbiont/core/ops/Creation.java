package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.HostSegments;
import dev.symbiont.core.backend.RandomKind;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/** New tensors on the current backend ({@link Backends#current()}) or a given one. */
public final class Creation {
    private Creation() {}

    public static Tensor full(double value, DType dtype, int... shape) {
        return full(Backends.current(), value, dtype, shape);
    }

    public static Tensor full(Backend backend, double value, DType dtype, int... shape) {
        return Tensor.of(backend.full(dtype, Layout.numel("full", shape), value), shape);
    }

    public static Tensor arange(double start, double end, double step, DType dtype) {
        if (step == 0 || Double.isNaN(start) || Double.isNaN(end) || Double.isNaN(step)) {
            throw new IllegalArgumentException("arange: invalid range start=" + start + " end=" + end + " step=" + step);
        }
        double count = Math.max(0, Math.ceil((end - start) / step));
        if (count > Layout.MAX_ELEMENTS) {
            throw new IllegalArgumentException("arange: " + start + " to " + end + " by " + step + " gives " + count
                    + " elements, more than 2^31 - 1 (the most one tensor may hold)");
        }
        int n = (int) count;
        double[] values = new double[n];
        for (int i = 0; i < n; i++) values[i] = start + i * step;
        return fromDoubles(Backends.current(), values, dtype, n);
    }

    /** The length up to which float32 counts exactly: 2²⁴, float32's largest run of consecutive integers. */
    public static final int EXACT_FLOAT_COUNT = 1 << 24;

    /**
     * 0, 1, …, n − 1 made on {@code backend} from primitives — a running sum of ones — so nothing
     * is uploaded: what per-step index tables and masks are built from on a device. The count is
     * float32, exact up to {@link #EXACT_FLOAT_COUNT}; a longer range throws naming {@code op}.
     *
     * @param dtype FLOAT32, or an integer dtype (cast from the exact floats)
     * @return (n) on {@code backend}
     */
    public static Tensor positions(Backend backend, String op, int n, DType dtype) {
        if (n < 0 || n > EXACT_FLOAT_COUNT) {
            throw new IllegalArgumentException(op + ": " + n + " positions exceed float32's exact integers (2^24)");
        }
        Tensor counted = full(backend, 1, DType.FLOAT32, n).cumsum(0).sub(1.0);
        return dtype == DType.FLOAT32 ? counted : counted.to(dtype);
    }

    public static Tensor eye(int n) {
        checkShape("eye", new int[] {n, n});
        float[] data = new float[n * n];
        for (int i = 0; i < n; i++) data[i * n + i] = 1f;
        return fromArray(data, n, n);
    }

    /** U[0, 1) drawn on the current backend from the generator's Philox stream. */
    public static Tensor rand(Generator generator, int... shape) {
        return random(Backends.current(), RandomKind.UNIFORM, "rand", generator, shape);
    }

    /** N(0, 1) drawn on the current backend from the generator's Philox stream. */
    public static Tensor randn(Generator generator, int... shape) {
        return random(Backends.current(), RandomKind.NORMAL, "randn", generator, shape);
    }

    /** Draws on {@code backend}, and advances the generator by the blocks used. */
    public static Tensor random(Backend backend, RandomKind kind, String op, Generator generator, int... shape) {
        checkShape(op, shape);
        int n = Layout.numel(shape);
        return Tensor.of(backend.random(kind, n, generator.seed(), generator.advance(n)), shape);
    }

    /** The data in exactly the given shape (an empty shape makes a scalar of one value). */
    public static Tensor fromArray(float[] data, int... shape) { return upload(Backends.current(), DType.FLOAT32, data, data.length, shape); }
    public static Tensor fromArray(int[] data, int... shape) { return upload(Backends.current(), DType.INT32, data, data.length, shape); }
    public static Tensor fromArray(long[] data, int... shape) { return upload(Backends.current(), DType.INT64, data, data.length, shape); }

    /** A 0-dimensional float32 tensor. */
    public static Tensor scalar(float value) {
        return upload(Backends.current(), DType.FLOAT32, new float[] {value}, 1);
    }

    /** Uploads a host array of the dtype's Java type into the given shape (empty shape: a scalar). */
    public static Tensor upload(Backend backend, DType dtype, Object data, int length, int... shape) {
        checkShape("fromArray", shape);
        if (Layout.numel(shape) != length) {
            throw new IllegalArgumentException("fromArray: " + length + " values do not fill shape "
                    + Arrays.toString(shape) + " (" + Layout.numel(shape) + " elements)");
        }
        return Tensor.of(backend.upload(dtype, data), shape);
    }

    /**
     * Copies a host segment of little-endian {@code dtype} elements (bfloat16 and float16 as
     * 16-bit patterns) onto {@code backend} in the given shape; the segment's byte size must be
     * exactly the shape's element count times the element size.
     */
    public static Tensor fromSegment(Backend backend, MemorySegment source, DType dtype, int... shape) {
        checkShape("fromSegment", shape);
        long count = HostSegments.elementCount("fromSegment", dtype, source);
        if (count != Layout.numel(shape)) {
            throw new IllegalArgumentException("fromSegment: a segment of " + source.byteSize() + " bytes holds " + count + " "
                    + dtype + " elements, shape " + Arrays.toString(shape) + " needs " + Layout.numel(shape));
        }
        return Tensor.of(backend.upload(dtype, source), shape);
    }

    static Tensor fromDoubles(Backend backend, double[] values, DType dtype, int... shape) {
        Object data = switch (dtype) {
            case FLOAT32 -> { float[] a = new float[values.length]; for (int i = 0; i < a.length; i++) a[i] = (float) values[i]; yield a; }
            case INT32 -> { int[] a = new int[values.length]; for (int i = 0; i < a.length; i++) a[i] = (int) values[i]; yield a; }
            case INT64 -> { long[] a = new long[values.length]; for (int i = 0; i < a.length; i++) a[i] = (long) values[i]; yield a; }
            case BFLOAT16, FLOAT16 -> {
                float[] a = new float[values.length];
                for (int i = 0; i < a.length; i++) a[i] = (float) values[i];
                yield Transfer.floatsToHalves(a, dtype);
            }
        };
        return upload(backend, dtype, data, values.length, shape);
    }

    static void checkShape(String op, int[] shape) { Layout.numel(op, shape); }
}
