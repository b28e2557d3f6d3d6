package dev.symbiont.nn.attention;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Helpers shared by the attention tests. */
final class AttentionTesting {
    private AttentionTesting() {}

    static Tensor randn(long seed, int... shape) { return Tensor.randn(new Generator(seed), shape); }

    /** Element-wise |a − b| ≤ tol, with the first offending index in the message. */
    static void assertClose(Tensor expected, Tensor actual, double tol, String what) {
        assertArrayEquals(expected.shape(), actual.shape(), what + ": shape");
        assertClose(expected.toFloatArray(), actual.toFloatArray(), tol, what);
    }

    static void assertClose(float[] expected, float[] actual, double tol, String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        double worst = 0;
        int at = -1;
        for (int i = 0; i < expected.length; i++) {
            double d = Math.abs(expected[i] - actual[i]);
            if (!(d <= worst)) { worst = d; at = i; }
        }
        if (at >= 0 && !(worst <= tol)) {
            throw new AssertionError(what + ": element " + at + " differs by " + worst + " (expected " + expected[at] + ", got " + actual[at]
                    + ", tolerance " + tol + ")");
        }
    }

    /** The rows [start, start + length) of dim 1 of x, as an array. */
    static float[] rows(Tensor x, int start, int length) { return x.narrow(1, start, length).contiguous().toFloatArray(); }
}
