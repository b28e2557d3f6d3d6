package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.PoolGeometry;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * max_pool2d's vector forward against its scalar twin, maxima and indices bit for bit: column
 * strides 1 and 2, paddings, ceil-mode windows past the edge, dilated rows, maps wider than one
 * run of lanes, and inputs full of ties (so that "the first maximum wins" is tested), ±0, −∞ and NaN.
 */
class VectorMaxPoolTest {

    @ParameterizedTest(name = "{0}x{1} kernel {2}x{3} stride {4}x{5} pad {6}x{7} dilation rows {8} ceil {9}")
    @CsvSource({
            "28, 28, 3, 3, 2, 2, 1, 1, 1, false",
            "7, 9, 2, 2, 2, 2, 0, 0, 1, false",
            "5, 37, 3, 3, 1, 1, 1, 1, 1, false",
            "40, 45, 3, 3, 2, 2, 1, 1, 1, false",
            "11, 33, 5, 5, 2, 2, 2, 2, 1, false",
            "13, 20, 3, 3, 2, 2, 1, 1, 2, false",
            "7, 7, 2, 2, 2, 2, 0, 0, 1, true",
            "9, 70, 3, 2, 3, 2, 1, 1, 1, true",
            "6, 17, 1, 1, 2, 2, 0, 0, 1, false"})
    void theVectorForwardIsTheScalarOneBitForBit(int h, int w, int kh, int kw, int sh, int sw, int ph, int pw, int dh, boolean ceil) {
        int n = 2, c = 3;
        PoolGeometry g = new PoolGeometry(n, c, h, w, kh, kw, sh, sw, ph, pw, dh, 1,
                out(h, kh, sh, ph, dh, ceil), out(w, kw, sw, pw, 1, ceil));
        assertTrue(VectorMaxPool.applies(g));
        Random r = new Random(h * 131L + w);
        float[] x = new float[5 + n * c * h * w];
        for (int i = 0; i < x.length; i++) {
            int pick = r.nextInt(40);
            x[i] = pick == 0 ? Float.NaN : pick == 1 ? Float.NEGATIVE_INFINITY : pick == 2 ? -0f : pick == 3 ? 0f
                    : (r.nextInt(7) - 3) * 0.5f;                        // few distinct values: many ties
        }
        Rows rows = new Rows(x, 5, w);
        int cells = n * c * g.outH() * g.outW();
        float[] scalar = new float[cells], vector = new float[cells];
        long[] scalarAt = new long[cells], vectorAt = new long[cells];
        PoolLoops.maxForward(rows, g, scalar, scalarAt);
        VectorMaxPool.forward(rows, g, vector, vectorAt);
        for (int i = 0; i < cells; i++) {
            assertEquals(Float.floatToRawIntBits(scalar[i]), Float.floatToRawIntBits(vector[i]), "maximum " + i);
            assertEquals(scalarAt[i], vectorAt[i], "index of maximum " + i);
        }
    }

    @ParameterizedTest
    @CsvSource({"1, 3", "2, 3", "3, 1"})
    void otherColumnGeometriesStayWithTheScalarLoop(int dilationW, int strideW) {
        PoolGeometry g = new PoolGeometry(1, 1, 9, 9, 3, 3, 1, strideW, 0, 0, 1, dilationW, 7, 3);
        assertFalse(VectorMaxPool.applies(g));
    }

    /** PyTorch's pooling output size; with ceil mode the last window must start inside the input or its left padding. */
    private static int out(int in, int k, int s, int p, int d, boolean ceil) {
        int span = in + 2 * p - d * (k - 1) - 1;
        int o = (ceil ? (span + s - 1) / s : span / s) + 1;
        if (ceil && (o - 1) * s >= in + p) o--;
        return o;
    }
}
