package dev.symbiont.cpu.kernels;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link SwigluKernel}'s vector loops against its scalar twin and against the formulas in
 * double, over awkward sizes (a lone element, vector tails, more than one thread's share),
 * with inputs out to ±30 where the sigmoid saturates.
 */
class SwigluKernelTest {

    private static float[] values(Random r, int n, double scale) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) (r.nextGaussian() * scale);
        return x;
    }

    private static double sigmoid(double x) { return 1 / (1 + Math.exp(-x)); }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {1, 13, 207, 4098, 40_001})
    void vectorAndScalarLoopsGiveSwigluAndItsGradients(int n) {
        Random r = new Random(n);
        int off = 3; // inputs at an offset, outputs from 0
        float[] a = values(r, n + off, 8), b = values(r, n + off, 1), g = values(r, n + off, 1);
        for (boolean vector : new boolean[] {true, false}) {
            float[] h = new float[n], da = new float[n], db = new float[n];
            SwigluKernel.forward(vector, a, off, b, off, h, n);
            SwigluKernel.backward(vector, g, off, a, off, b, off, da, db, n);
            for (int i = 0; i < n; i++) {
                double x = a[off + i], s = sigmoid(x), silu = x * s;
                String at = (vector ? "vector" : "scalar") + " element " + i + " (a = " + x + ")";
                assertEquals(silu * b[off + i], h[i], 1e-5 * Math.max(1, Math.abs(silu * b[off + i])), "h, " + at);
                double expectDb = g[off + i] * silu, expectDa = g[off + i] * b[off + i] * s * (1 + x * (1 - s));
                assertEquals(expectDb, db[i], 1e-5 * Math.max(1, Math.abs(expectDb)), "db, " + at);
                assertEquals(expectDa, da[i], 1e-5 * Math.max(1, Math.abs(expectDa)), "da, " + at);
            }
        }
    }

    @ParameterizedTest(name = "{0} columns (at most a vector)")
    @ValueSource(ints = {1, 5, 64})
    void aTileOfTwoProductsGetsTheGateOfTheForwardLoop(int requested) {
        int L = VectorConstants.L, cols = Math.min(requested, L), stride = 2 * L, rows = 7, ldh = 40, at = 3;
        Random r = new Random(cols);
        float[] tile = values(r, rows * stride, 8);
        for (boolean vector : new boolean[] {true, false}) {
            float[] h = new float[at + rows * ldh];
            java.util.Arrays.fill(h, Float.NaN);
            SwigluKernel.tile(vector, tile, stride, L, rows, cols, h, at, ldh);
            for (int i = 0; i < rows; i++) {
                float[] row = new float[cols];
                SwigluKernel.forward(vector, java.util.Arrays.copyOfRange(tile, i * stride, i * stride + cols), 0,
                        java.util.Arrays.copyOfRange(tile, i * stride + L, i * stride + L + cols), 0, row, cols);
                for (int j = 0; j < cols; j++) {
                    assertEquals(row[j], h[at + i * ldh + j], (vector ? "vector" : "scalar") + " row " + i + " column " + j);
                }
                for (int j = cols; j < ldh && at + i * ldh + j < h.length; j++) {
                    assertEquals(Float.NaN, h[at + i * ldh + j], "row " + i + " column " + j + " is outside the tile");
                }
            }
        }
    }
}
