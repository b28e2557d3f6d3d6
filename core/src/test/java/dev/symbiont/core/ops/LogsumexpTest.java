package dev.symbiont.core.ops;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** torch.logsumexp: values against a direct computation in double, stability, infinities, shapes. */
class LogsumexpTest {
    private static final float NEG_INF = Float.NEGATIVE_INFINITY;

    /** log Σ exp over the rows (dim 1) of a (rows, cols) array, computed directly in double. */
    private static float[] direct(float[] x, int rows, int cols) {
        float[] out = new float[rows];
        for (int r = 0; r < rows; r++) {
            double s = 0;
            for (int c = 0; c < cols; c++) s += Math.exp(x[r * cols + c]);
            out[r] = (float) Math.log(s);
        }
        return out;
    }

    @Test
    void matchesTheDirectSumOfExponentialsAlongEachDim() {
        Tensor x = Tensor.randn(new Generator(3), 4, 6).mul(3.0);
        float[] v = x.toFloatArray();
        assertArrayEquals(direct(v, 4, 6), x.logsumexp(1, false).toFloatArray(), 1e-5f);
        assertArrayEquals(direct(v, 4, 6), x.logsumexp(-1, false).toFloatArray(), 1e-5f);
        assertArrayEquals(direct(x.t().contiguous().toFloatArray(), 6, 4), x.logsumexp(0, false).toFloatArray(), 1e-5f);
        float all = direct(v, 1, 24)[0];
        assertEquals(all, x.logsumexp(new int[] {0, 1}, false).item(), 1e-5f);
    }

    @Test
    void keepdimKeepsTheReducedDimsAsOnes() {
        Tensor x = Tensor.randn(new Generator(5), 2, 3, 4);
        assertArrayEquals(new int[] {2, 1, 4}, x.logsumexp(1, true).shape());
        assertArrayEquals(new int[] {2, 4}, x.logsumexp(1, false).shape());
        assertArrayEquals(new int[] {1, 3, 1}, x.logsumexp(new int[] {0, 2}, true).shape());
        assertArrayEquals(x.logsumexp(1, false).toFloatArray(), x.logsumexp(1, true).toFloatArray());
    }

    @Test
    void largeValuesDoNotOverflow() {
        Tensor x = Tensor.fromArray(new float[] {1000f, 1000f, 999f, -1000f, -1000f, -1001f}, 2, 3);
        float tail = (float) Math.log(2 + Math.exp(-1)); // log(e^0 + e^0 + e^-1)
        assertArrayEquals(new float[] {1000f + tail, -1000f + tail}, x.logsumexp(1, false).toFloatArray(), 1e-3f);
        // The naive form overflows to inf and underflows to -inf on the same rows.
        assertEquals(Float.POSITIVE_INFINITY, x.exp().sum(1, false).log().toFloatArray()[0]);
    }

    @Test
    void infinitiesAndEmptySlicesGiveWhatPyTorchGives() {
        Tensor x = Tensor.fromArray(new float[] {
                NEG_INF, NEG_INF, NEG_INF,
                NEG_INF, 0f, NEG_INF,
                Float.POSITIVE_INFINITY, 1f, 2f,
                Float.NaN, 1f, 2f}, 4, 3);
        float[] y = x.logsumexp(1, false).toFloatArray();
        assertEquals(NEG_INF, y[0], "an all -inf row");
        assertEquals(0f, y[1], "one finite entry among -inf");
        assertEquals(Float.POSITIVE_INFINITY, y[2]);
        assertTrue(Float.isNaN(y[3]));
        assertArrayEquals(new float[] {NEG_INF, NEG_INF}, Tensor.zeros(2, 0).logsumexp(1, false).toFloatArray());
    }

    @Test
    void gradientIsTheSoftmaxEvenForLargeValues() {
        Tensor x = Tensor.fromArray(new float[] {1000f, 1000f, 0f, 1f}, 2, 2).requiresGrad(true);
        x.logsumexp(1, false).sum().backward();
        float e = (float) (1 / (1 + Math.E));
        // exp(x − y) with y = 1000.693 held in float32 (spacing 6e-5 there), as PyTorch's backward computes it.
        assertArrayEquals(new float[] {0.5f, 0.5f, e, 1 - e}, x.grad().toFloatArray(), 1e-4f);
    }

    @Test
    void badDimsAreNamed() {
        var e = assertThrows(IllegalArgumentException.class, () -> Tensor.zeros(2, 3).logsumexp(2, false));
        assertTrue(e.getMessage().contains("logsumexp"), e.getMessage());
        var ints = assertThrows(IllegalArgumentException.class, () -> Tensor.fromArray(new long[] {1, 2}).logsumexp(0, false));
        assertTrue(ints.getMessage().contains("logsumexp") && ints.getMessage().contains("int64"), ints.getMessage());
    }
}
