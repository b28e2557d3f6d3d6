package dev.symbiont.cpu.kernels;

import dev.symbiont.core.Half;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MatVec}'s vector loop and its scalar twin against the product in double, on float32
 * and bfloat16 weights: sizes with vector tails and partial blocks of four outputs, a row
 * stride wider than a row, operands at offsets, a bias, and enough weights to split over the pool.
 */
class MatVecTest {

    private static float[] gaussian(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) r.nextGaussian();
        return v;
    }

    @ParameterizedTest(name = "rows {0}, out {1}, in {2}")
    @CsvSource({"1, 1, 1", "1, 7, 13", "2, 9, 16", "3, 33, 50", "4, 64, 64", "1, 203, 769", "2, 1030, 100"})
    void bothLoopsGiveTheProductOnFloat32AndBfloat16Weights(int rows, int out, int in) {
        Random r = new Random(31L * out + in);
        int xOff = 5, xStride = in + 3, wOff = 7, wStride = in + 2, biasOff = 2, ldy = out + 1;
        float[] x = gaussian(r, xOff + rows * xStride), bias = gaussian(r, biasOff + out);
        float[] w32 = gaussian(r, wOff + out * wStride);
        short[] w16 = new short[w32.length];
        for (int i = 0; i < w32.length; i++) w16[i] = Half.floatToBf16(w32[i]);
        for (boolean bf16 : new boolean[] {false, true}) {
            MatVec.Weights w = new MatVec.Weights(bf16 ? w16 : w32, wOff, wStride);
            for (boolean vector : new boolean[] {true, false}) {
                float[] y = new float[rows * ldy];
                MatVec.forward(vector, rows, out, in, x, xOff, xStride, w, bias, biasOff, y, ldy);
                for (int i = 0; i < rows; i++) {
                    for (int j = 0; j < out; j++) {
                        double expect = bias[biasOff + j];
                        for (int p = 0; p < in; p++) {
                            int at = wOff + j * wStride + p;
                            expect += (double) x[xOff + i * xStride + p] * (bf16 ? Half.bf16ToFloat(w16[at]) : w32[at]);
                        }
                        assertEquals(expect, y[i * ldy + j], 2e-6 * Math.sqrt(in) * (1 + Math.abs(expect)),
                                (bf16 ? "bfloat16" : "float32") + (vector ? " vector" : " scalar") + " y[" + i + ", " + j + "]");
                    }
                }
            }
        }
    }

    @Test
    void withoutABiasTheOutputIsTheProductAndColumnsPastOutStayUntouched() {
        Random r = new Random(2);
        int out = 6, in = 40, ldy = 8;
        float[] x = gaussian(r, in), w = gaussian(r, out * in), y = new float[ldy];
        y[6] = 42;
        y[7] = -1;
        MatVec.forward(true, 1, out, in, x, 0, in, new MatVec.Weights(w, 0, in), null, 0, y, ldy);
        double first = 0;
        for (int p = 0; p < in; p++) first += (double) x[p] * w[p];
        assertEquals(first, y[0], 1e-5 * (1 + Math.abs(first)));
        assertEquals(42, y[6]);
        assertEquals(-1, y[7]);
    }

    @Test
    void refusesMoreRowsThanItTakesAndWeightsOfAnotherType() {
        float[] x = new float[10 * 4], y = new float[10 * 4];
        var w = new MatVec.Weights(new float[16], 0, 4);
        var e = assertThrows(IllegalArgumentException.class, () -> MatVec.forward(true, MatVec.MAX_ROWS + 1, 4, 4, x, 0, 4, w, null, 0, y, 4));
        assertTrue(e.getMessage().contains("at most " + MatVec.MAX_ROWS + " rows"), e.getMessage());
        var t = assertThrows(IllegalArgumentException.class, () -> new MatVec.Weights(new int[4], 0, 4));
        assertTrue(t.getMessage().contains("float[] or short[]"), t.getMessage());
    }
}
