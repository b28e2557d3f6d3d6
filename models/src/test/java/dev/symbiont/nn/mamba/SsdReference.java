package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;

import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The recurrence both SSD forms compute, walked position by position in double precision:
 * h_t = exp(Δ_t·A)·h_{t−1} + Δ_t·x_t B_tᵀ, y_t = h_t C_t + D·x_t — what {@code SsdTest} and
 * {@code SsdScanTest} hold {@link Ssd#chunked} and {@link SsdScan#scan} to.
 */
final class SsdReference {
    private SsdReference() {}

    /** The inputs of one SSD call. */
    record Case(Tensor x, Tensor dt, Tensor a, Tensor b, Tensor c, Tensor d, Tensor h0) {
        static Case random(long seed, int batch, int len, int heads, int p, int groups, int n, boolean withState) {
            Generator g = new Generator(seed);
            return new Case(Tensor.randn(g, batch, len, heads, p), Tensor.rand(g, batch, len, heads).mul(0.5).add(0.01),
                    Tensor.rand(g, heads).mul(-2).sub(0.1), Tensor.randn(g, batch, len, groups, n), Tensor.randn(g, batch, len, groups, n),
                    Tensor.randn(g, heads), withState ? Tensor.randn(g, batch, heads, p, n) : null);
        }
    }

    /** y (batch, L, heads, P) then the final h (batch, heads, P, N), flattened, by the recurrence. */
    static double[][] recurrence(Case k) {
        int batch = k.x.size(0), len = k.x.size(1), heads = k.x.size(2), p = k.x.size(3), groups = k.b.size(2), n = k.b.size(3);
        float[] x = k.x.toFloatArray(), dt = k.dt.toFloatArray(), a = k.a.toFloatArray(), b = k.b.toFloatArray(), c = k.c.toFloatArray();
        float[] d = k.d.toFloatArray(), h0 = k.h0 == null ? new float[batch * heads * p * n] : k.h0.toFloatArray();
        double[] y = new double[batch * len * heads * p], h = new double[batch * heads * p * n];
        for (int i = 0; i < h.length; i++) h[i] = h0[i];
        for (int bi = 0; bi < batch; bi++) for (int hd = 0; hd < heads; hd++) {
            int gr = hd / (heads / groups);
            for (int t = 0; t < len; t++) {
                double delta = dt[(bi * len + t) * heads + hd], decay = Math.exp(delta * a[hd]);
                for (int i = 0; i < p; i++) {
                    double xi = x[((bi * len + t) * heads + hd) * p + i], acc = d[hd] * xi;
                    for (int j = 0; j < n; j++) {
                        int hi = ((bi * heads + hd) * p + i) * n + j, bc = ((bi * len + t) * groups + gr) * n + j;
                        h[hi] = decay * h[hi] + delta * xi * b[bc];
                        acc += h[hi] * c[bc];
                    }
                    y[((bi * len + t) * heads + hd) * p + i] = acc;
                }
            }
        }
        return new double[][] {y, h};
    }

    static void assertClose(double[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-4 * (1 + Math.abs(expected[i])), what + " element " + i);
        }
    }

    /** x, dt, A, B, C, D, h₀ for a finite-difference check: batch 1, L 5, 2 heads of 2, one group of N 3. */
    static GradCheck.Input[] gradCheckInputs(Generator g) {
        return new GradCheck.Input[] {GradCheck.randn(g, 1, 1, 5, 2, 2), GradCheck.uniform(g, 0.1, 0.6, 1, 5, 2),
                GradCheck.uniform(g, -1.5, -0.3, 2), GradCheck.randn(g, 1, 1, 5, 1, 3), GradCheck.randn(g, 1, 1, 5, 1, 3),
                GradCheck.randn(g, 1, 2), GradCheck.randn(g, 1, 1, 2, 2, 3)};
    }

    /** {@code ssd} given a B of 3 groups for the 4 heads of {@code k} (batch 1, L 4, P 2, N 3) throws naming the op and the shapes. */
    static void assertRefusesThreeGroupsOfFourHeads(Case k, Consumer<Tensor> ssd) {
        var e = assertThrows(IllegalArgumentException.class, () -> ssd.accept(k.b().narrow(2, 0, 1).expand(1, 4, 3, 3)));
        assertTrue(e.getMessage().startsWith("ssd") && e.getMessage().contains("B [1, 4, 3, 3]") && e.getMessage().contains("x [1, 4, 4, 2]"),
                e.getMessage());
    }
}
