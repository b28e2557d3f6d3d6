package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class LayersTest {
    @Test
    void should_initialise_linear_like_pytorch_within_one_over_sqrt_fan_in() {
        Linear l = new Linear(64, 256, true, new Generator(7));
        double bound = 1 / Math.sqrt(64);
        float[] w = l.weight().value().toFloatArray();
        Stats s = Stats.of(w);
        assertTrue(s.maxAbs <= bound, "max |w| " + s.maxAbs);
        assertEquals(bound / Math.sqrt(3), s.std, 0.05 * bound, "uniform std");
        assertTrue(Stats.of(l.bias().value().toFloatArray()).maxAbs <= bound);
    }

    @Test
    void should_compute_x_times_w_transposed_plus_bias() {
        Linear l = new Linear(3, 2, true, new Generator(1));
        float[] w = l.weight().value().toFloatArray(), b = l.bias().value().toFloatArray();
        float[] x = {1, -2, 0.5f};
        float[] y = l.forward(Tensor.fromArray(x, 1, 3)).toFloatArray();
        for (int o = 0; o < 2; o++) {
            double expect = b[o];
            for (int i = 0; i < 3; i++) expect += x[i] * w[o * 3 + i];
            assertEquals(expect, y[o], 1e-6);
        }
        var e = assertThrows(IllegalArgumentException.class, () -> l.forward(Tensor.zeros(2, 4)));
        assertTrue(e.getMessage().contains("Linear(3 → 2)") && e.getMessage().contains("[2, 4]"), e.getMessage());
    }

    @Test
    void should_gate_silu_of_one_projection_by_the_other_and_refuse_biases_or_other_shapes() {
        Linear gate = new Linear(4, 6, false, new Generator(1)), up = new Linear(4, 6, false, new Generator(2));
        Tensor x = Tensor.randn(new Generator(3), 2, 5, 4);
        float[] expected = gate.forward(x).silu().mul(up.forward(x)).toFloatArray(), actual = gate.forwardSwiglu(up, x).toFloatArray();
        for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], 1e-5, "element " + i);
        var biased = assertThrows(IllegalArgumentException.class, () -> gate.forwardSwiglu(new Linear(4, 6, true, new Generator(4)), x));
        assertTrue(biased.getMessage().contains("bias-free") && biased.getMessage().contains("bias"), biased.getMessage());
        var wide = assertThrows(IllegalArgumentException.class, () -> gate.forwardSwiglu(new Linear(4, 7, false, new Generator(4)), x));
        assertTrue(wide.getMessage().contains("Linear(4 → 7)"), wide.getMessage());
    }

    @Test
    void should_draw_the_same_weights_from_the_same_seed() {
        assertArrayEquals(new Linear(5, 7, true, new Generator(3)).weight().value().toFloatArray(),
                new Linear(5, 7, true, new Generator(3)).weight().value().toFloatArray());
        assertFalse(java.util.Arrays.equals(new Linear(5, 7, true, new Generator(3)).weight().value().toFloatArray(),
                new Linear(5, 7, true, new Generator(4)).weight().value().toFloatArray()));
    }

    @Test
    void should_initialise_embeddings_from_a_standard_normal() {
        Stats s = Stats.of(new Embedding(100, 64, new Generator(2)).weight().value().toFloatArray());
        assertEquals(0, s.mean, 0.05);
        assertEquals(1, s.std, 0.05);
    }

    @Test
    void should_match_the_initialisers_spreads() {
        Generator g = new Generator(5);
        assertEquals(Math.sqrt(2.0 / (100 + 300)), Stats.of(Init.xavierNormal(g, 1, 300, 100).toFloatArray()).std, 0.003);
        double xb = Math.sqrt(6.0 / (100 + 300));
        assertTrue(Stats.of(Init.xavierUniform(g, 1, 300, 100).toFloatArray()).maxAbs <= xb);
        assertEquals(Math.sqrt(2.0 / 200), Stats.of(Init.kaimingNormal(g, 0, 50, 200).toFloatArray()).std, 0.004);
        double kb = Math.sqrt(6.0 / 200);
        assertTrue(Stats.of(Init.kaimingUniform(g, 0, 50, 200).toFloatArray()).maxAbs <= kb);
        Stats t = Stats.of(Init.truncatedNormal(g, 0, 1, -2, 2, 20000).toFloatArray());
        assertTrue(t.maxAbs <= 2, "truncated at ±2");
        assertEquals(0.8796, t.std, 0.02, "std of a standard normal truncated at ±2");
        assertEquals(3 * 5 * 5, Init.fanIn("conv", 8, 3, 5, 5));
    }

    @Test
    void should_normalise_to_zero_mean_and_unit_variance_initially() {
        Tensor x = Tensor.randn(new Generator(1), 4, 32).mul(3).add(2);
        Stats s = Stats.of(new LayerNorm(32).forward(x).toFloatArray());
        assertEquals(0, s.mean, 1e-5);
        assertEquals(1, s.std, 0.02);
        float[] r = new RMSNorm(32).forward(x).toFloatArray();
        for (int row = 0; row < 4; row++) {
            double ms = 0;
            for (int i = 0; i < 32; i++) ms += r[row * 32 + i] * r[row * 32 + i];
            assertEquals(1, ms / 32, 1e-3);
        }
    }

    @Test
    void should_drop_a_fraction_p_scale_the_rest_and_pass_through_in_eval() {
        Dropout d = new Dropout(0.25, new Generator(9));
        Tensor x = Tensor.ones(100, 100).requiresGrad(true);
        Tensor y = d.forward(x);
        float[] v = y.toFloatArray();
        int zeros = 0;
        for (float f : v) {
            if (f == 0) zeros++;
            else assertEquals(1 / 0.75, f, 1e-6);
        }
        assertEquals(0.25, zeros / 10000.0, 0.02);
        y.sum().backward();
        assertArrayEquals(v, x.grad().toFloatArray(), "the gradient passes through the same mask");
        d.eval();
        assertSame(x, d.forward(x));
        assertThrows(IllegalArgumentException.class, () -> new Dropout(1.0));
    }

    @Test
    void should_chain_sequential_layers_in_order() {
        Sequential net = new Sequential(new Linear(2, 3, true, new Generator(1)), Activation.relu());
        Tensor x = Tensor.randn(new Generator(2), 4, 2);
        Tensor expected = ((Linear) net.get(0)).forward(x).relu();
        assertArrayEquals(expected.toFloatArray(), net.forward(x).toFloatArray());
        assertTrue(net.toString().contains("0: Linear(in=2, out=3, bias=true)"), net.toString());
    }

    record Stats(double mean, double std, double maxAbs) {
        static Stats of(float[] v) {
            double s = 0, ss = 0, m = 0;
            for (float f : v) { s += f; m = Math.max(m, Math.abs(f)); }
            double mean = s / v.length;
            for (float f : v) ss += (f - mean) * (f - mean);
            return new Stats(mean, Math.sqrt(ss / v.length), m);
        }
    }
}
