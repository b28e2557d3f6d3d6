package dev.symbiont.core.fused.scan;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reference scans ({@link ReferenceScan}) against independent scalar loops in double,
 * their gradients against finite differences, and their errors.
 */
class ScanTest {
    private final Generator gen = new Generator(5);

    private Tensor randn(int... shape) { return Tensor.randn(gen, shape); }

    private Tensor uniform(double lo, double hi, int... shape) { return Tensor.rand(gen, shape).mul(hi - lo).add(lo); }

    /** Selective scan by the equations, in double: (out, last state) for 3-D (one group) or 4-D B/C. */
    private static double[][] scalarSelectiveScan(Tensor u, Tensor delta, Tensor a, Tensor b, Tensor c, Tensor d,
                                                  Tensor z, Tensor bias, boolean softplus) {
        int batch = u.size(0), ch = u.size(1), len = u.size(2), n = a.size(1);
        int groups = b.dim() == 4 ? b.size(1) : 1;
        float[] uv = u.toFloatArray(), dv = delta.toFloatArray(), av = a.toFloatArray(), bv = b.toFloatArray(),
                cv = c.toFloatArray(), skip = d == null ? null : d.toFloatArray(), zv = z == null ? null : z.toFloatArray(),
                bi = bias == null ? null : bias.toFloatArray();
        double[] out = new double[batch * ch * len], last = new double[batch * ch * n];
        for (int bb = 0; bb < batch; bb++) for (int k = 0; k < ch; k++) {
            int g = k / (ch / groups);
            double[] h = new double[n];
            for (int l = 0; l < len; l++) {
                int i = (bb * ch + k) * len + l;
                double dt = dv[i] + (bi == null ? 0 : bi[k]);
                if (softplus) dt = dt > 20 ? dt : Math.log1p(Math.exp(dt));
                double y = 0;
                for (int s = 0; s < n; s++) {
                    int j = ((bb * groups + g) * n + s) * len + l;
                    h[s] = Math.exp(dt * av[k * n + s]) * h[s] + dt * bv[j] * uv[i];
                    y += h[s] * cv[j];
                }
                double o = y + (skip == null ? 0 : skip[k] * uv[i]);
                if (zv != null) o *= zv[i] / (1 + Math.exp(-zv[i]));
                out[i] = o;
            }
            for (int s = 0; s < n; s++) last[(bb * ch + k) * n + s] = h[s];
        }
        return new double[][] {out, last};
    }

    private static void assertClose(String what, double[] expected, float[] actual) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (!(Math.abs(expected[i] - actual[i]) <= 1e-4 * (1 + Math.abs(expected[i])))) {
                throw new AssertionError(what + ": element " + i + " is " + actual[i] + ", expected " + expected[i]);
            }
        }
    }

    @Test
    void linearScanIsTheFirstOrderRecurrenceAlongTheGivenDim() {
        Tensor a = Tensor.fromArray(new float[] {0.5f, 2, -1, 0.5f, 3, 0}, 2, 3);
        Tensor b = Tensor.fromArray(new float[] {1, 1, 1, 2, 2, 2}, 2, 3);
        // along dim 1: h = 1, 2·1 + 1, −1·3 + 1; along dim 0: h = b₀, a₁·b₀ + b₁
        assertArrayEquals(new float[] {1, 3, -2, 2, 8, 2}, Scans.linearScan(a, b, 1).toFloatArray());
        assertArrayEquals(new float[] {1, 1, 1, 2.5f, 5, 2}, Scans.linearScan(a, b, 0).toFloatArray());
        assertArrayEquals(new float[] {1, 3, -2, 2, 8, 2}, Scans.linearScan(a, b, -1).toFloatArray());
    }

    @Test
    void selectiveScanMatchesTheEquations() {
        for (int groups : new int[] {0, 1, 2}) {
            for (boolean full : new boolean[] {false, true}) {
                int[] bc = groups == 0 ? new int[] {2, 3, 9} : new int[] {2, groups, 3, 9};
                Tensor u = randn(2, 4, 9), delta = randn(2, 4, 9), a = uniform(-2, -0.1, 4, 3);
                Tensor b = randn(bc), c = randn(bc);
                Tensor d = full ? randn(4) : null, z = full ? randn(2, 4, 9) : null, bias = full ? randn(4) : null;
                Scans.ScanOutput r = Scans.selectiveScan(u, delta.abs(), a, b, c, d, z, bias, full, true);
                double[][] expected = scalarSelectiveScan(u, delta.abs(), a, b, c, d, z, bias, full);
                assertClose("groups " + groups + " full " + full + ": out", expected[0], r.output().toFloatArray());
                assertClose("groups " + groups + " full " + full + ": last state", expected[1], r.lastState().toFloatArray());
                assertArrayEquals(new int[] {2, 4, 3}, r.lastState().shape());
            }
        }
        assertNull(Scans.selectiveScan(randn(1, 2, 3), randn(1, 2, 3), uniform(-1, -0.5, 2, 1), randn(1, 1, 3),
                randn(1, 1, 3), null, null, null, true, false).lastState());
    }

    @Test
    void linearScanFromTheLastStateOfAPrefixContinuesTheWholeScan() {
        Tensor a = uniform(-1, 1, 2, 9, 3), b = randn(2, 9, 3);
        Tensor whole = Scans.linearScan(a, b, 1);
        Tensor prefix = Scans.linearScan(a.narrow(1, 0, 4), b.narrow(1, 0, 4), 1);
        Tensor rest = Scans.linearScan(a.narrow(1, 4, 5), b.narrow(1, 4, 5), 1, prefix.select(1, 3));
        assertClose("prefix then rest", toDouble(whole), Tensor.cat(java.util.List.of(prefix, rest), 1).toFloatArray());
    }

    @Test
    void selectiveScanFromTheLastStateOfAPrefixContinuesTheWholeScan() {
        Tensor u = randn(2, 4, 9), delta = randn(2, 4, 9), a = uniform(-2, -0.1, 4, 3), b = randn(2, 2, 3, 9),
                c = randn(2, 2, 3, 9), d = randn(4), z = randn(2, 4, 9), bias = randn(4);
        Scans.ScanOutput whole = Scans.selectiveScan(u, delta, a, b, c, d, z, bias, true, true);
        Scans.ScanOutput prefix = Scans.selectiveScan(u.narrow(2, 0, 5), delta.narrow(2, 0, 5), a, b.narrow(3, 0, 5),
                c.narrow(3, 0, 5), d, z.narrow(2, 0, 5), bias, true, true);
        Scans.ScanOutput rest = Scans.selectiveScan(u.narrow(2, 5, 4), delta.narrow(2, 5, 4), a, b.narrow(3, 5, 4),
                c.narrow(3, 5, 4), d, z.narrow(2, 5, 4), bias, true, prefix.lastState(), true);
        assertClose("prefix then rest", toDouble(whole.output()),
                Tensor.cat(java.util.List.of(prefix.output(), rest.output()), 2).toFloatArray());
        assertClose("last state", toDouble(whole.lastState()), rest.lastState().toFloatArray());
    }

    private static double[] toDouble(Tensor t) {
        float[] f = t.toFloatArray();
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) d[i] = f[i];
        return d;
    }

    @Test
    void linearScanGradientsMatchFiniteDifferences() {
        GradCheck.check("linear scan", in -> Scans.linearScan(in.get(0), in.get(1), 1),
                GradCheck.uniform(gen, -1, 1, 2, 5, 3), GradCheck.randn(gen, 1, 2, 5, 3));
        GradCheck.check("linear scan from an initial state", in -> Scans.linearScan(in.get(0), in.get(1), 1, in.get(2)),
                GradCheck.uniform(gen, -1, 1, 2, 5, 3), GradCheck.randn(gen, 1, 2, 5, 3), GradCheck.randn(gen, 1, 2, 3));
    }

    @Test
    void selectiveScanGradientsMatchFiniteDifferences() {
        GradCheck.check("selective scan, everything", in -> Scans.selectiveScan(in.get(0), in.get(1), in.get(2),
                        in.get(3), in.get(4), in.get(5), in.get(6), in.get(7), true),
                GradCheck.randn(gen, 1, 1, 4, 3), GradCheck.randn(gen, 0.5, 1, 4, 3), GradCheck.uniform(gen, -1.5, -0.3, 4, 2),
                GradCheck.randn(gen, 1, 1, 2, 2, 3), GradCheck.randn(gen, 1, 1, 2, 2, 3), GradCheck.randn(gen, 1, 4),
                GradCheck.randn(gen, 1, 1, 4, 3), GradCheck.randn(gen, 0.5, 4));
        GradCheck.check("selective scan from an initial state", in -> Scans.selectiveScan(in.get(0), in.get(1), in.get(2),
                        in.get(3), in.get(4), in.get(5), null, null, true, in.get(6), false).output(),
                GradCheck.randn(gen, 1, 2, 3, 4), GradCheck.randn(gen, 0.5, 2, 3, 4), GradCheck.uniform(gen, -1.5, -0.3, 3, 2),
                GradCheck.randn(gen, 1, 2, 2, 4), GradCheck.randn(gen, 1, 2, 2, 4), GradCheck.randn(gen, 1, 3),
                GradCheck.randn(gen, 1, 2, 3, 2));
        GradCheck.check("selective scan, bare", in -> Scans.selectiveScan(in.get(0), in.get(1), in.get(2),
                        in.get(3), in.get(4), null, null, null, false),
                GradCheck.randn(gen, 1, 2, 3, 4), GradCheck.uniform(gen, 0.1, 0.6, 2, 3, 4), GradCheck.uniform(gen, -1.5, -0.3, 3, 2),
                GradCheck.randn(gen, 1, 2, 2, 4), GradCheck.randn(gen, 1, 2, 2, 4));
    }

    // ---- bad input -------------------------------------------------------------------------------

    private static void throwsMentioning(Executable call, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' should mention " + f);
    }

    @Test
    void badShapesAreErrorsNamingTheOpAndTheShapes() {
        Tensor u = randn(2, 4, 5), a = randn(4, 3), bc = randn(2, 3, 5);
        throwsMentioning(() -> Scans.linearScan(randn(2, 3), randn(3, 2), 0), "linear_scan", "[2, 3]", "[3, 2]");
        throwsMentioning(() -> Scans.selectiveScan(u, randn(2, 4, 6), a, bc, bc, null, null, null, true),
                "selective_scan", "delta", "[2, 4, 6]", "[2, 4, 5]");
        throwsMentioning(() -> Scans.selectiveScan(u, u, randn(3, 3), bc, bc, null, null, null, true),
                "selective_scan", "A must be (d_inner, N) = (4, N)", "[3, 3]");
        throwsMentioning(() -> Scans.selectiveScan(u, u, a, randn(2, 2, 5), bc, null, null, null, true),
                "selective_scan", "B must be", "[2, 2, 5]");
        throwsMentioning(() -> Scans.selectiveScan(u, u, a, bc, randn(2, 3, 4), null, null, null, true),
                "selective_scan", "C must be", "[2, 3, 4]");
        throwsMentioning(() -> Scans.selectiveScan(u, u, a, randn(2, 3, 3, 5), randn(2, 3, 3, 5), null, null, null, true),
                "selective_scan", "3 groups", "d_inner = 4");
        throwsMentioning(() -> Scans.selectiveScan(u, u, a, bc, bc, randn(5), null, null, true), "selective_scan", "D must be", "[5]");
        throwsMentioning(() -> Scans.selectiveScan(u, u, a, bc, bc, null, randn(2, 4), null, true), "selective_scan", "z must", "[2, 4]");
        throwsMentioning(() -> Scans.selectiveScan(u, u, a, bc, bc, null, null, randn(3), true), "selective_scan", "deltaBias", "[3]");
        throwsMentioning(() -> Scans.linearScan(randn(2, 3, 4), randn(2, 3, 4), 1, randn(2, 3)),
                "linear_scan", "initialState", "[2, 4]", "[2, 3]");
        throwsMentioning(() -> Scans.selectiveScan(u, u, a, bc, bc, null, null, null, true, randn(2, 4, 4), false),
                "selective_scan", "initialState must be (batch, d_inner, N) = (2, 4, 3)", "[2, 4, 4]");
        throwsMentioning(() -> Scans.selectiveScan(randn(2, 4, 0), randn(2, 4, 0), a, randn(2, 3, 0), randn(2, 3, 0),
                null, null, null, true), "selective_scan", "L must be at least 1");
    }
}
