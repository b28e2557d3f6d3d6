package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.SIZES;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.positive;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.upload;

/** unary and binary of the CPU backend against the reference, on fast-path and fallback layouts. */
class CpuElementwiseTest {

    /** Transcendentals may differ by a few ulps; tiny outputs compare absolutely (the reference gelu_tanh
     * itself loses relative precision below x ≈ −5, where 1 + tanh u cancels in double). */
    private static final double RTOL = 4e-6, ATOL = 1e-9;

    private static float[] inputFor(UnaryOp op, long seed, int n) {
        return switch (op) {
            case LOG, SQRT, RSQRT -> positive(seed, n);
            default -> random(seed, n, 12f);
        };
    }

    private static void compareUnary(UnaryOp op, float[] data, Layout layout) {
        Storage r = REF.unary(op, upload(REF, data), layout), c = CPU.unary(op, upload(CPU, data), layout);
        int[] shape = layout.shape().clone();
        assertClose(op + " " + layout, read(REF, r, shape), read(CPU, c, shape), RTOL, ATOL);
    }

    @ParameterizedTest
    @EnumSource(UnaryOp.class)
    void unaryMatchesReferenceOnContiguousInputs(UnaryOp op) {
        for (int n : SIZES) compareUnary(op, inputFor(op, n, n), Layout.contiguous(n));
    }

    @ParameterizedTest
    @EnumSource(UnaryOp.class)
    void unaryMatchesReferenceOnOffsetAndTransposedViews(UnaryOp op) {
        float[] data = inputFor(op, 3, 1 + 31 * 13);
        compareUnary(op, data, new Layout(new int[] {31, 13}, new int[] {13, 1}, 1));   // offset, contiguous
        compareUnary(op, data, new Layout(new int[] {13, 31}, new int[] {1, 13}, 0));   // transposed: fallback
        compareUnary(op, data, new Layout(new int[] {4, 31}, new int[] {0, 1}, 5));     // broadcast: fallback
    }

    @Test
    void addIntoGivesTheReferenceBitsInPlaceForEverySourceLayout() {
        int rows = 37, cols = 45;
        float[] dst = random(8, rows * cols, 3f), src = random(9, 1 + rows * cols, 3f);
        Layout d = Layout.contiguous(rows, cols);
        Layout[] sources = {
                new Layout(new int[] {rows, cols}, new int[] {cols, 1}, 1),    // contiguous from an offset
                new Layout(new int[] {rows, cols}, new int[] {0, 1}, 0),       // a row broadcast (a bias's gradient)
                new Layout(new int[] {rows, cols}, new int[] {1, 0}, 0),       // a column broadcast
                new Layout(new int[] {rows, cols}, new int[] {1, rows}, 0)};   // transposed: the reference's path
        for (Layout s : sources) {
            Storage r = upload(REF, dst), c = upload(CPU, dst);
            REF.addInto(r, d, upload(REF, src), s);
            CPU.addInto(c, d, upload(CPU, src), s);
            org.junit.jupiter.api.Assertions.assertArrayEquals(read(REF, r, rows, cols), read(CPU, c, rows, cols), "src " + s);
        }
        // the destination itself as the source: twice each element
        Storage c = upload(CPU, dst);
        CPU.addInto(c, d, c, d);
        float[] twice = read(CPU, c, rows, cols);
        for (int i = 0; i < twice.length; i++) org.junit.jupiter.api.Assertions.assertEquals(dst[i] + dst[i], twice[i]);
    }

    @ParameterizedTest
    @EnumSource(UnaryOp.class)
    void unaryKeepsSpecialValues(UnaryOp op) {
        float[] special = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, 1e-30f, -1e-30f,
                88f, -88f, 100f, -100f, 9f, -9f, 1e30f, -1e30f, 0.5f, -0.5f, Float.MIN_VALUE};
        compareUnary(op, special, Layout.contiguous(special.length));
    }

    @Test
    void reluOfNegativeZeroAndNanIsLikeReference() {
        float[] data = {-0f, Float.NaN, -1f, 2f};
        float[] out = read(CPU, CPU.unary(UnaryOp.RELU, upload(CPU, data), Layout.contiguous(4)), 4);
        assertClose("relu", new float[] {0f, Float.NaN, 0f, 2f}, out, 0, 0);
        org.junit.jupiter.api.Assertions.assertEquals(0, Float.floatToRawIntBits(out[0]), "relu(-0) is +0");
    }

    // ---- binary ---------------------------------------------------------------------------------

    private static void compareBinary(BinaryOp op, float[] a, Layout al, float[] b, Layout bl) {
        Storage r = REF.binary(op, upload(REF, a), al, upload(REF, b), bl);
        Storage c = CPU.binary(op, upload(CPU, a), al, upload(CPU, b), bl);
        int[] shape = al.shape().clone();
        assertClose(op + " " + al + " with " + bl, read(REF, r, shape), read(CPU, c, shape), 1e-6, 0);
    }

    private static float[] operand(BinaryOp op, long seed, int n) {
        float[] x = random(seed, n, 5f);
        if (op.isComparison() || op == BinaryOp.MAXIMUM || op == BinaryOp.MINIMUM) {
            for (int i = 0; i < n; i += 3) x[i] = Math.round(x[i]); // plenty of ties
        }
        if (op == BinaryOp.POW) for (int i = 0; i < n; i++) x[i] = Math.abs(x[i]);
        return x;
    }

    @ParameterizedTest
    @EnumSource(BinaryOp.class)
    void binaryMatchesReferenceOnContiguousOperands(BinaryOp op) {
        for (int n : SIZES) {
            Layout l = Layout.contiguous(n);
            compareBinary(op, operand(op, n, n), l, operand(op, n + 1, n), l);
        }
    }

    @ParameterizedTest
    @EnumSource(BinaryOp.class)
    void binaryMatchesReferenceWithBroadcastBiasRowStatisticAndScalar(BinaryOp op) {
        for (int cols : new int[] {1, 7, 31, 207, 4098}) {
            int rows = cols == 4098 ? 20 : 13;
            int n = rows * cols;
            Layout full = Layout.contiguous(rows, cols);
            float[] x = operand(op, cols, n);
            float[] bias = operand(op, cols + 7, cols + 3);
            float[] stat = operand(op, cols + 11, rows + 2);
            Layout biasL = new Layout(new int[] {rows, cols}, new int[] {0, 1}, 3);     // (cols) expanded
            Layout statL = new Layout(new int[] {rows, cols}, new int[] {1, 0}, 2);     // (rows, 1) expanded
            Layout scalarL = new Layout(new int[] {rows, cols}, new int[] {0, 0}, 1);   // scalar expanded
            for (Layout other : new Layout[] {biasL, statL, scalarL}) {
                float[] y = other == biasL ? bias : stat;
                compareBinary(op, x, full, y, other);
                compareBinary(op, y, other, x, full);
            }
            // both broadcast (an outer product) and a transposed operand take the reference
            compareBinary(op, stat, statL, bias, biasL);
            compareBinary(op, x, new Layout(new int[] {rows, cols}, new int[] {1, rows}, 0), x, full);
        }
    }

    @Test
    void largeBroadcastBinaryRunsInParallelAndMatches() {
        int rows = 600, cols = 130; // 78,000 elements: above the parallel threshold
        float[] x = random(1, rows * cols, 3f), bias = random(2, cols, 3f), stat = random(3, rows, 3f);
        Layout full = Layout.contiguous(rows, cols);
        compareBinary(BinaryOp.ADD, x, full, bias, new Layout(new int[] {rows, cols}, new int[] {0, 1}, 0));
        compareBinary(BinaryOp.SUB, x, full, stat, new Layout(new int[] {rows, cols}, new int[] {1, 0}, 0));
        compareBinary(BinaryOp.DIV, stat, new Layout(new int[] {rows, cols}, new int[] {1, 0}, 0), x, full);
    }

    @ParameterizedTest
    @EnumSource(BinaryOp.class)
    void binaryHandlesNanInfinityAndSignedZero(BinaryOp op) {
        float[] v = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, 1f, -1f, 2.5f};
        int n = v.length * v.length;
        float[] a = new float[n], b = new float[n];
        for (int i = 0; i < v.length; i++) {
            for (int j = 0; j < v.length; j++) {
                a[i * v.length + j] = v[i];
                b[i * v.length + j] = v[j];
            }
        }
        compareBinary(op, a, Layout.contiguous(n), b, Layout.contiguous(n));
    }
}
