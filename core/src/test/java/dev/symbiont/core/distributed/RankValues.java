package dev.symbiont.core.distributed;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;

import java.util.Arrays;
import java.util.function.DoubleUnaryOperator;
import java.util.function.IntToDoubleFunction;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The inputs of the collective checks, each a known function of (rank, index), and the exact
 * results the checks expect, computed here element by element. Float values are small
 * multiples of 1/2, so every sum of a few ranks is exact in float32 and the expected result does
 * not depend on the order in which an implementation adds the ranks; int64 values need more than
 * 32 bits, so a truncating transport cannot pass.
 */
public final class RankValues {
    private RankValues() {}

    /** Element counts: one, odd, a 2-D (10, 100), and one past a power of two. */
    public static final int[] COUNTS = {1, 7, 1000, 65537};

    /** Rank {@code rank}'s element {@code index} of a {@code dtype} tensor. */
    public static double value(DType dtype, int rank, long index) {
        return switch (dtype) {
            case FLOAT32 -> ((index * 7 + rank * 13L) % 101 - 50) * 0.5 + rank;
            case INT32 -> (index * 31 + rank * 17L) % 1009 - 504 + rank * 100_000L;
            case INT64 -> ((index % 1000 - 500) << 33) + rank * 7L + index;
            default -> throw new IllegalArgumentException("no rank values for " + dtype);
        };
    }

    /** Rank {@code rank}'s host value {@code index} for the host allReduce: exact in double, some beyond float's precision. */
    public static double hostValue(int rank, long index) {
        return ((index * 11 + rank * 5L) % 97 - 48) * 0.25 + rank * 1e9 + 1;
    }

    /** The shape a check gives {@code count} elements: 1000 is (10, 100), the rest 1-D, so shapes other than vectors are exercised. */
    public static int[] shapeOf(int count) { return count == 1000 ? new int[] {10, 100} : new int[] {count}; }

    /** A {@code dtype} tensor of {@code shape} whose element i is {@code values(i)}. */
    public static Tensor tensor(DType dtype, int[] shape, IntToDoubleFunction values) {
        int n = Arrays.stream(shape).reduce(1, (a, b) -> a * b);
        return switch (dtype) {
            case FLOAT32 -> {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) a[i] = (float) values.applyAsDouble(i);
                yield Tensor.fromArray(a, shape);
            }
            case INT32 -> {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) a[i] = (int) values.applyAsDouble(i);
                yield Tensor.fromArray(a, shape);
            }
            case INT64 -> {
                long[] a = new long[n];
                for (int i = 0; i < n; i++) a[i] = (long) values.applyAsDouble(i);
                yield Tensor.fromArray(a, shape);
            }
            default -> throw new IllegalArgumentException("no rank values for " + dtype);
        };
    }

    /** Rank {@code rank}'s {@code dtype} tensor of {@code shape}: element i is {@link #value}(dtype, rank, i). */
    public static Tensor ofRank(DType dtype, int rank, int[] shape) { return tensor(dtype, shape, i -> value(dtype, rank, i)); }

    /**
     * Element {@code index} of the {@code op}-reduction over ranks 0..size-1, in the tensor's own
     * arithmetic: float32 for float32 (AVG being the float32 sum divided by the size), exact
     * integers otherwise (every value and sum here is below 2^53, so a double holds it exactly).
     */
    public static double reduced(DType dtype, Reduction op, int size, long index) {
        DoubleUnaryOperator round = dtype == DType.FLOAT32 ? x -> (float) x : x -> x;
        return reduce(op, size, r -> value(dtype, r, index), round);
    }

    /** The host allReduce's expected element {@code index}, in double. */
    public static double hostReduced(Reduction op, int size, long index) {
        return reduce(op, size, r -> hostValue(r, index), x -> x);
    }

    /** The ranks' values combined in rank order, each step rounded to the element type (float32 arithmetic is double's, rounded). */
    private static double reduce(Reduction op, int size, IntToDoubleFunction valueOfRank, DoubleUnaryOperator round) {
        double acc = valueOfRank.applyAsDouble(0);
        for (int r = 1; r < size; r++) {
            double x = valueOfRank.applyAsDouble(r);
            acc = round.applyAsDouble(switch (op) {
                case SUM, AVG -> acc + x;
                case MAX -> Math.max(acc, x);
                case MIN -> Math.min(acc, x);
            });
        }
        return op == Reduction.AVG ? round.applyAsDouble(acc / size) : acc;
    }

    /** Every element of {@code actual} equals {@code expected(i)} exactly (float32 bit for bit); the first that differs is named. */
    public static void assertElements(String what, Tensor actual, IntToDoubleFunction expected) {
        int n = actual.numel();
        if (actual.dtype() == DType.FLOAT32) {
            float[] a = actual.toFloatArray();
            for (int i = 0; i < n; i++) {
                float e = (float) expected.applyAsDouble(i);
                if (Float.floatToIntBits(a[i]) != Float.floatToIntBits(e)) fail(what + ": element " + i + " of " + n + " is " + a[i] + ", expected " + e);
            }
        } else {
            long[] a = actual.toLongArray();
            for (int i = 0; i < n; i++) {
                long e = (long) expected.applyAsDouble(i);
                if (a[i] != e) fail(what + ": element " + i + " of " + n + " is " + a[i] + ", expected " + e);
            }
        }
    }
}
