package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.Storage;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.SIZES;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.upload;

/** reduce of the CPU backend against the reference: trailing dims, leading dims and fallbacks. */
class CpuReductionsTest {

    private static void compare(ReduceOp op, float[] data, Layout layout, int... dims) {
        Storage r = REF.reduce(op, upload(REF, data), layout, dims);
        Storage c = CPU.reduce(op, upload(CPU, data), layout, dims);
        int[] shape = layout.shape().clone();
        for (int d : dims) shape[d] = 1;
        // Sums of n values of either sign: error scales with √n · |values|, so allow an absolute slack.
        double atol = op == ReduceOp.SUM ? 2e-6 * Math.sqrt(layout.numel()) : 0;
        assertClose(op + " " + layout + " over " + java.util.Arrays.toString(dims),
                read(REF, r, shape), read(CPU, c, shape), 2e-6, atol);
    }

    @ParameterizedTest
    @EnumSource(value = ReduceOp.class, names = {"SUM", "MAX", "MIN"})
    void reducesTheWholeOfContiguousVectors(ReduceOp op) {
        for (int n : SIZES) compare(op, random(n, n, 3f), Layout.contiguous(n), 0);
        compare(op, random(5, 1_000_003, 3f), Layout.contiguous(1_000_003), 0);
    }

    @ParameterizedTest
    @EnumSource(value = ReduceOp.class, names = {"SUM", "MAX", "MIN"})
    void reducesTrailingAndLeadingDims(ReduceOp op) {
        for (int cols : SIZES) {
            int rows = cols > 4098 ? 3 : 9;
            float[] data = random(cols, rows * cols + 4, 3f);
            Layout l = new Layout(new int[] {rows, cols}, new int[] {cols, 1}, 4);
            compare(op, data, l, 1);
            compare(op, data, l, 0);
            compare(op, data, l, 0, 1);
        }
        float[] data = random(9, 6 * 7 * 13, 3f);
        Layout l3 = Layout.contiguous(6, 7, 13);
        compare(op, data, l3, 1, 2);
        compare(op, data, l3, 0, 1);
        compare(op, data, l3, 0, 1, 2);
        compare(op, data, l3, 1);                                            // middle dim: reference
        compare(op, data, l3, 0, 2);                                         // gap: reference
        compare(op, data, new Layout(new int[] {13, 42}, new int[] {1, 13}, 0), 1); // transposed: reference
        int big = 40_000;                                                    // leading dim, many rows, parallel over columns
        compare(op, random(11, big * 3, 3f), Layout.contiguous(big, 3), 0);
        compare(op, random(12, 300 * 500, 3f), Layout.contiguous(300, 500), 0);
    }

    @ParameterizedTest
    @EnumSource(value = ReduceOp.class, names = {"SUM", "MAX", "MIN"})
    void propagatesNan(ReduceOp op) {
        for (int n : new int[] {5, 40, 100}) {
            float[] data = random(n, n, 1f);
            data[n / 2] = Float.NaN;
            compare(op, data, Layout.contiguous(n), 0);
            compare(op, data, Layout.contiguous(5, n / 5), 1);
            compare(op, data, Layout.contiguous(5, n / 5), 0);
        }
    }
}
