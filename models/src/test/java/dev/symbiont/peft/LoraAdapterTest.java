package dev.symbiont.peft;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.nn.Linear;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/** One Linear with a LoRA adapter: y = x Wᵀ + b + (x Aᵀ Bᵀ) · α / r, its initialisation, gradients, fused paths and merging. */
class LoraAdapterTest {
    private static final int IN = 5, OUT = 6, R = 2;
    private static final double SCALING = 16.0 / R;

    private static Linear adapted(double dropout) {
        Linear base = new Linear(IN, OUT, true, new Generator(1));
        base.weight().freeze(true);
        base.bias().freeze(true);
        LoraAdapter a = new LoraAdapter(base, R, SCALING, dropout, new Generator(2));
        base.attach(a);
        a.b().update(Tensor.randn(new Generator(3), OUT, R));             // a trained B: the term is not zero
        return base;
    }

    private static LoraAdapter adapter(Linear l) { return (LoraAdapter) l.adapter(); }

    private static void assertClose(float[] expected, float[] actual, double tol, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], tol, what + " [" + i + "]");
    }

    @Test
    void forward_is_the_base_plus_the_scaled_low_rank_term() {
        Linear l = adapted(0);
        Tensor x = Tensor.randn(new Generator(4), 3, IN);
        float[] got = l.forward(x).toFloatArray();
        float[] xs = x.toFloatArray(), w = l.weight().value().toFloatArray(), b = l.bias().value().toFloatArray();
        float[] a = adapter(l).a().value().toFloatArray(), bb = adapter(l).b().value().toFloatArray();
        for (int i = 0; i < 3; i++) {
            for (int o = 0; o < OUT; o++) {
                double y = b[o];
                for (int k = 0; k < IN; k++) y += xs[i * IN + k] * w[o * IN + k];
                double low = 0;
                for (int r = 0; r < R; r++) {
                    double ax = 0;
                    for (int k = 0; k < IN; k++) ax += a[r * IN + k] * xs[i * IN + k];
                    low += bb[o * R + r] * ax;
                }
                assertEquals(y + SCALING * low, got[i * OUT + o], 1e-4, "y[" + i + "][" + o + "]");
            }
        }
    }

    @Test
    void a_starts_kaiming_uniform_and_b_at_zero_so_the_output_is_the_base_s() {
        Linear base = new Linear(IN, OUT, true, new Generator(1));
        Tensor x = Tensor.randn(new Generator(4), 3, IN);
        float[] before = base.forward(x).toFloatArray();
        LoraAdapter a = new LoraAdapter(base, R, SCALING, 0, new Generator(2));
        base.attach(a);
        assertArrayEquals(new float[OUT * R], a.b().value().toFloatArray(), "B = 0");
        float[] av = a.a().value().toFloatArray();
        double bound = 1 / Math.sqrt(IN);                                  // kaiming_uniform(a = √5): U(±1/√in)
        for (float v : av) assertTrue(Math.abs(v) <= bound, v + " within ±" + bound);
        assertTrue(a.a().value().abs().sum().item() > 0, "A drawn, not zero");
        assertArrayEquals(before, base.forward(x).toFloatArray(), "the base's output, bit for bit");
    }

    @Test
    void the_low_rank_linear_passes_a_finite_difference_gradient_check() {
        Generator g = new Generator(5);
        GradCheck.check("lora linear", in -> Linears.linear(in.get(0), in.get(1), in.get(2))
                        .add(LoraAdapter.lowRank(in.get(0), in.get(3), in.get(4), 1.5)),
                GradCheck.randn(g, 1, 3, IN), GradCheck.randn(g, 0.5, OUT, IN), GradCheck.randn(g, 0.5, OUT),
                GradCheck.randn(g, 0.5, R, IN), GradCheck.randn(g, 0.5, OUT, R));
    }

    @Test
    void the_module_computes_the_checked_function() {
        Linear l = adapted(0);
        Tensor x = Tensor.randn(new Generator(6), 2, 3, IN);
        Tensor expected = Linears.linear(x, l.weight().value(), l.bias().value())
                .add(LoraAdapter.lowRank(x, adapter(l).a().value(), adapter(l).b().value(), SCALING));
        assertArrayEquals(expected.toFloatArray(), l.forward(x).toFloatArray());
    }

    @Test
    void gradients_reach_a_and_b_only() {
        Linear l = adapted(0);
        l.forward(Tensor.randn(new Generator(7), 4, IN)).square().sum().backward();
        assertNull(l.weight().grad(), "the frozen weight gets no gradient");
        assertNull(l.bias().grad(), "the frozen bias gets no gradient");
        assertNotNull(adapter(l).a().grad());
        assertTrue(adapter(l).b().grad().abs().sum().item() > 0, "B's gradient");
    }

    @Test
    void the_fused_paths_add_the_adapter_s_term_too() {
        Linear l = adapted(0);
        Tensor x = Tensor.randn(new Generator(8), 2, IN);
        Tensor y = l.forward(x);
        assertClose(y.gelu().toFloatArray(), l.forwardGelu(x).toFloatArray(), 1e-6, "forwardGelu");
        Tensor[] parts = l.forwardSplit(x, 2, 4);
        assertClose(y.narrow(1, 0, 2).contiguous().toFloatArray(), parts[0].contiguous().toFloatArray(), 1e-6, "forwardSplit[0]");
        assertClose(y.narrow(1, 2, 4).contiguous().toFloatArray(), parts[1].contiguous().toFloatArray(), 1e-6, "forwardSplit[1]");
        assertClose(y.narrow(1, 1, 3).contiguous().toFloatArray(), l.forwardRows(x, 1, 3).contiguous().toFloatArray(), 1e-6, "forwardRows");
        Linear gate = new Linear(IN, OUT, false, new Generator(9)), up = new Linear(IN, OUT, false, new Generator(10));
        LoraAdapter a = new LoraAdapter(gate, R, SCALING, 0, new Generator(11));
        gate.attach(a);
        a.b().update(Tensor.randn(new Generator(12), OUT, R));
        assertClose(gate.forward(x).silu().mul(up.forward(x)).toFloatArray(), gate.forwardSwiglu(up, x).toFloatArray(), 1e-6, "forwardSwiglu");
        float[] base = Linears.linear(x, l.weight().value(), l.bias().value()).toFloatArray(), adaptedY = y.toFloatArray();
        assertTrue(java.util.stream.IntStream.range(0, base.length).anyMatch(i -> Math.abs(base[i] - adaptedY[i]) > 1e-3),
                "the adapter changes the output");
    }

    @Test
    void dropout_acts_on_the_adapter_s_input_in_training_only() {
        Linear l = adapted(0.5);
        Tensor x = Tensor.randn(new Generator(13), 8, IN);
        l.eval();
        float[] eval = l.forward(x).toFloatArray();
        Tensor expected = Linears.linear(x, l.weight().value(), l.bias().value())
                .add(LoraAdapter.lowRank(x, adapter(l).a().value(), adapter(l).b().value(), SCALING));
        assertClose(expected.toFloatArray(), eval, 1e-5, "eval: no dropout");
        l.train();
        float[] train = l.forward(x).toFloatArray();
        assertTrue(java.util.stream.IntStream.range(0, eval.length).anyMatch(i -> Math.abs(eval[i] - train[i]) > 1e-4), "train: dropped");
    }

    @Test
    void merge_folds_the_term_into_the_weight_and_unmerge_takes_it_out_again() {
        Linear l = adapted(0);
        Tensor x = Tensor.randn(new Generator(14), 3, IN);
        float[] weight = l.weight().value().toFloatArray(), adaptedY = l.forward(x).toFloatArray();
        adapter(l).merge();
        float[] merged = l.weight().value().toFloatArray();
        float[] delta = adapter(l).deltaWeight().toFloatArray();
        for (int i = 0; i < weight.length; i++) assertEquals(weight[i] + delta[i], merged[i], 1e-6, "W + B A · scale");
        assertClose(adaptedY, l.forward(x).toFloatArray(), 1e-4, "merged output");
        assertThrows(IllegalStateException.class, () -> adapter(l).merge());
        adapter(l).unmerge();
        // W + Δ − Δ in float32: PEFT's unmerge is a subtraction, equal up to one rounding of the sum
        assertClose(weight, l.weight().value().toFloatArray(), 1e-6, "unmerged weight");
        assertClose(adaptedY, l.forward(x).toFloatArray(), 1e-4, "adapted again");
    }

    @Test
    void a_second_adapter_is_refused_and_a_detached_linear_is_plain_again() {
        Linear l = adapted(0);
        var e = assertThrows(IllegalStateException.class, () -> l.attach(new LoraAdapter(l, 1, 1, 0, new Generator(1))));
        assertTrue(e.getMessage().contains("attached already"), e.getMessage());
        Tensor x = Tensor.randn(new Generator(15), 2, IN);
        assertNotNull(l.detach());
        assertArrayEquals(Linears.linear(x, l.weight().value(), l.bias().value()).toFloatArray(), l.forward(x).toFloatArray());
        assertEquals(java.util.List.of("weight", "bias"), java.util.List.copyOf(l.stateDict().keySet()));
    }
}
