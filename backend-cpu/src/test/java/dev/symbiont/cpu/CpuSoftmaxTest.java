package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import org.junit.jupiter.api.Test;

import java.util.function.BiFunction;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.SIZES;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.norm;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.tensor;

/** The fused softmax / log_softmax kernels and their backwards against the norm family's reference. */
class CpuSoftmaxTest {

    /** Backward outputs are differences of O(1) terms, so they carry an absolute float error. */
    private static final double RTOL = 1e-5, ATOL = 2e-6;

    /** Runs op on both backends over the same data and layout and compares. */
    private static void compare(String what, float[] data, Layout layout, int dim,
                                BiFunction<Backend, Tensor, Tensor> op) {
        float[] expected = read(op.apply(REF, tensor(REF, data, layout)));
        float[] actual = read(op.apply(CPU, tensor(CPU, data, layout)));
        assertClose(what + " " + layout + " dim " + dim, expected, actual, RTOL, ATOL);
    }

    private static void compareAll(float[] data, Layout layout, int dim) {
        compare("softmax", data, layout, dim, (b, x) -> norm(b).softmax(x, dim));
        compare("log_softmax", data, layout, dim, (b, x) -> norm(b).logSoftmax(x, dim));
        float[] grad = random(data.length + 1, data.length, 1f);
        compare("softmax backward", data, layout, dim, (b, x) -> {
            Tensor y = norm(b).softmax(x, dim);
            return norm(b).softmaxBackward(y, tensor(b, grad, layout), dim);
        });
        compare("log_softmax backward", data, layout, dim, (b, x) -> {
            Tensor y = norm(b).logSoftmax(x, dim);
            return norm(b).logSoftmaxBackward(y, tensor(b, grad, layout), dim);
        });
    }

    @Test
    void matchesDefaultsAlongTheLastDimOnAwkwardSizes() {
        for (int cols : SIZES) {
            int rows = cols >= 4098 ? 2 : 11;
            compareAll(random(cols, rows * cols, 8f), Layout.contiguous(rows, cols), 1);
        }
        compareAll(random(3, 5 * 7 * 13, 8f), Layout.contiguous(5, 7, 13), 2);
        compareAll(random(4, 300 * 130, 8f), Layout.contiguous(300, 130), 1); // parallel over rows
    }

    @Test
    void matchesDefaultsOnViewsAndOtherDims() {
        float[] data = random(5, 31 * 13 + 3, 6f);
        compareAll(data, new Layout(new int[] {31, 13}, new int[] {13, 1}, 3), 1);  // offset view
        compareAll(data, new Layout(new int[] {13, 31}, new int[] {1, 13}, 0), 1);  // transposed: copied
        compareAll(data, new Layout(new int[] {13, 7}, new int[] {31, 1}, 2), 1);   // narrowed rows: strided
        compareAll(data, new Layout(new int[] {4, 13}, new int[] {0, 1}, 0), 1);    // broadcast rows
        compareAll(data, Layout.contiguous(31, 13), 0);                             // not the last dim: default
    }

    @Test
    void matchesDefaultsOnExtremeRows() {
        float[] data = {1000f, -1000f, 0f, Float.NEGATIVE_INFINITY, 50f, 50f, 50f, 50f, 1e-30f};
        compareAll(data, Layout.contiguous(3, 3), 1);
        float[] allMinusInf = {Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, 1f, Float.NaN};
        compareAll(allMinusInf, Layout.contiguous(2, 2), 1);
    }

    @Test
    void softmaxRowsSumToOne() {
        int cols = 4098;
        Tensor y = norm(CPU).softmax(tensor(CPU, random(8, 3 * cols, 20f), Layout.contiguous(3, cols)), 1);
        float[] out = read(y);
        for (int r = 0; r < 3; r++) {
            double s = 0;
            for (int j = 0; j < cols; j++) s += out[r * cols + j];
            org.junit.jupiter.api.Assertions.assertEquals(1.0, s, 1e-5, "row " + r);
        }
    }
}
