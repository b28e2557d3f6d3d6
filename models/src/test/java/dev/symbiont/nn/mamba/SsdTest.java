package dev.symbiont.nn.mamba;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mamba-2's chunked SSD against the recurrence it computes, walked position by position in
 * double precision: h_t = exp(Δ_t·A)·h_{t−1} + Δ_t·x_t B_tᵀ, y_t = h_t C_t + D·x_t.
 */
class SsdTest {
    /** The inputs of one SSD call. */
    private record Case(Tensor x, Tensor dt, Tensor a, Tensor b, Tensor c, Tensor d, Tensor h0) {
        static Case random(long seed, int batch, int len, int heads, int p, int groups, int n, boolean withState) {
            Generator g = new Generator(seed);
            return new Case(Tensor.randn(g, batch, len, heads, p), Tensor.rand(g, batch, len, heads).mul(0.5).add(0.01),
                    Tensor.rand(g, heads).mul(-2).sub(0.1), Tensor.randn(g, batch, len, groups, n), Tensor.randn(g, batch, len, groups, n),
                    Tensor.randn(g, heads), withState ? Tensor.randn(g, batch, heads, p, n) : null);
        }
    }

    /** y (batch, L, heads, P) then the final h (batch, heads, P, N), flattened, by the recurrence. */
    private static double[][] recurrence(Case k) {
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

    private static void assertClose(double[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-4 * (1 + Math.abs(expected[i])), what + " element " + i);
        }
    }

    @ParameterizedTest(name = "L {1}, chunk {2}, heads {3}, groups {4}, initial state {5}")
    @CsvSource({
            "1, 7, 3, 2, 1, false",      // L not a multiple of the chunk
            "2, 7, 3, 4, 2, true",       // grouped B and C, from a state
            "3, 1, 4, 2, 2, true",       // L = 1
            "4, 12, 4, 3, 3, false",     // L a multiple of the chunk, one group per head
            "5, 5, 256, 2, 1, true"})    // L ≤ chunk: one quadratic block
    void chunkedSsdEqualsTheStepByStepRecurrence(long seed, int len, int chunk, int heads, int groups, boolean withState) {
        Case k = Case.random(seed, 2, len, heads, 3, groups, 4, withState);
        Ssd.Output out = Ssd.chunked(k.x, k.dt, k.a, k.b, k.c, k.d, k.h0, chunk);
        double[][] expected = recurrence(k);
        assertArrayEquals(new int[] {2, len, heads, 3}, out.y().shape());
        assertArrayEquals(new int[] {2, heads, 3, 4}, out.finalState().shape());
        assertClose(expected[0], out.y().toFloatArray(), "y");
        assertClose(expected[1], out.finalState().toFloatArray(), "final state");
    }

    @Test
    void oneStepAtATimeEqualsTheRecurrence() {
        Case k = Case.random(6, 2, 5, 4, 3, 2, 4, true);
        Tensor h = k.h0;
        List<Tensor> ys = new ArrayList<>();
        for (int t = 0; t < 5; t++) {
            Ssd.Output o = Ssd.step(h, k.x.select(1, t), k.dt.select(1, t), k.a, k.b.select(1, t), k.c.select(1, t), k.d);
            h = o.finalState();
            ys.add(o.y());                                                         // (batch, heads, P)
        }
        double[][] expected = recurrence(k);
        assertClose(expected[0], Tensor.stack(ys, 1).toFloatArray(), "y");
        assertClose(expected[1], h.toFloatArray(), "final state");
    }

    @Test
    void gradientsOfEveryInputMatchFiniteDifferences() {
        Generator g = new Generator(7);
        GradCheck.check("ssd", in -> {
            Ssd.Output o = Ssd.chunked(in.get(0), in.get(1), in.get(2), in.get(3), in.get(4), in.get(5), in.get(6), 2);
            return Tensor.cat(List.of(o.y().reshape(o.y().numel()), o.finalState().reshape(o.finalState().numel())), 0);
        }, GradCheck.randn(g, 1, 1, 5, 2, 2), GradCheck.uniform(g, 0.1, 0.6, 1, 5, 2), GradCheck.uniform(g, -1.5, -0.3, 2),
                GradCheck.randn(g, 1, 1, 5, 1, 3), GradCheck.randn(g, 1, 1, 5, 1, 3), GradCheck.randn(g, 1, 2),
                GradCheck.randn(g, 1, 1, 2, 2, 3));
    }

    @Test
    void badShapesAreRefusedNamingTheOpAndEveryShape() {
        Case k = Case.random(8, 1, 4, 4, 2, 2, 3, false);
        var e = assertThrows(IllegalArgumentException.class, () -> Ssd.chunked(k.x, k.dt, k.a, k.b.narrow(2, 0, 1).expand(1, 4, 3, 3),
                k.c, k.d, null, 2));
        assertTrue(e.getMessage().startsWith("ssd:") && e.getMessage().contains("B [1, 4, 3, 3]") && e.getMessage().contains("x [1, 4, 4, 2]"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Ssd.chunked(k.x, k.dt, k.a.narrow(0, 0, 3), k.b, k.c, k.d, null, 2));
        assertThrows(IllegalArgumentException.class, () -> Ssd.chunked(k.x, k.dt, k.a, k.b, k.c, k.d, Tensor.zeros(1, 4, 2, 2), 2));
        assertThrows(IllegalArgumentException.class, () -> Ssd.chunked(k.x, k.dt, k.a, k.b, k.c, k.d, null, 0));
    }
}
