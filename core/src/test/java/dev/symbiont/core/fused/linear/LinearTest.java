package dev.symbiont.core.fused.linear;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import dev.symbiont.core.fused.Families;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** linear's values against a hand computation, finite differences of every gradient, and its errors. */
class LinearTest {

    @Test
    void linearIsXTimesWeightTransposedPlusBias() {
        Tensor x = Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3);
        Tensor w = Tensor.fromArray(new float[] {1, 0, -1, 2, 1, 0}, 2, 3);
        Tensor b = Tensor.fromArray(new float[] {10, 20}, 2);
        assertArrayEquals(new float[] {1 - 3 + 10, 2 + 2 + 20, 4 - 6 + 10, 8 + 5 + 20}, Linears.linear(x, w, b).toFloatArray());
        assertArrayEquals(new float[] {-2, 4, -2, 13}, Linears.linear(x, w, null).toFloatArray());
    }

    @Test
    void gradientsMatchFiniteDifferences() {
        Generator g = new Generator(3);
        GradCheck.check("linear", in -> Linears.linear(in.get(0), in.get(1), in.get(2)),
                GradCheck.randn(g, 1, 2, 3, 7), GradCheck.randn(g, 1, 5, 7), GradCheck.randn(g, 1, 5));
        GradCheck.check("linear without bias", in -> Linears.linear(in.get(0), in.get(1), null),
                GradCheck.randn(g, 1, 4, 6), GradCheck.randn(g, 1, 3, 6));
    }

    /**
     * A weight kept in bfloat16 (a checkpoint's stored precision) computes as its float32
     * widening: the same output and input gradient, exactly; its own gradient comes in its dtype.
     */
    @Test
    void aBfloat16WeightComputesAsItsWideningAndGetsABfloat16Gradient() {
        Generator g = new Generator(8);
        Tensor w16 = Tensor.randn(g, 5, 7).to(DType.BFLOAT16).requiresGrad(true);
        Tensor w32 = w16.detach().to(DType.FLOAT32).requiresGrad(true);
        Tensor b = Tensor.randn(g, 5), gy = Tensor.randn(g, 3, 5);
        Tensor x16 = Tensor.randn(g, 3, 7).requiresGrad(true), x32 = x16.detach().clone().requiresGrad(true);
        Tensor y16 = Linears.linear(x16, w16, b), y32 = Linears.linear(x32, w32, b);
        assertEquals(DType.FLOAT32, y16.dtype());
        assertArrayEquals(y32.toFloatArray(), y16.toFloatArray());
        y16.backward(gy);
        y32.backward(gy);
        assertArrayEquals(x32.grad().toFloatArray(), x16.grad().toFloatArray());
        assertEquals(DType.BFLOAT16, w16.grad().dtype());
        assertArrayEquals(w32.grad().to(DType.BFLOAT16).toFloatArray(), w16.grad().toFloatArray());
        var e = assertThrows(IllegalArgumentException.class, () -> Linears.linear(x32, w32.detach().to(DType.INT32), null));
        assertTrue(e.getMessage().contains("linear: expected float32 but got int32"), e.getMessage());
    }

    @Test
    void theProfilerCountsTheBackwardsGemmsForTheGradientsAskedFor() {
        Generator g = new Generator(5);
        Tensor w = Tensor.randn(g, 3, 4).requiresGrad(true), b = Tensor.randn(g, 3).requiresGrad(true);
        long gemm = 2L * 6 * 3 * 4, outputs = 6 * 3;
        for (boolean inputGrad : new boolean[] {true, false}) {
            Tensor x = Tensor.randn(g, 2, 3, 4).requiresGrad(inputGrad);
            try (ProfilerSession p = Profiler.start()) {
                Linears.linear(x, w, b).sum().backward();
                Linears.linearGelu(x, w, b).sum().backward();
                ProfileReport r = p.report();
                long expected = (inputGrad ? 2 : 1) * gemm + outputs;
                assertEquals(expected, r.op("linear.backward").orElseThrow().flops());
                assertEquals(expected + outputs, r.op("linear_gelu.backward").orElseThrow().flops()); // and the product with GELU′
            }
        }
    }

    @Test
    void linearGeluIsGeluOfTheLinear() {
        Generator g = new Generator(5);
        Tensor x = Tensor.randn(g, 3, 4, 6), w = Tensor.randn(g, 5, 6), b = Tensor.randn(g, 5);
        assertArrayEquals(new int[] {3, 4, 5}, Linears.linearGelu(x, w, b).shape());
        float[] expected = Linears.linear(x, w, b).gelu().toFloatArray(), actual = Linears.linearGelu(x, w, b).toFloatArray();
        for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], 1e-6, "element " + i);
    }

    @Test
    void linearGeluGradientsMatchFiniteDifferences() {
        Generator g = new Generator(4);
        GradCheck.check("linear_gelu", in -> Linears.linearGelu(in.get(0), in.get(1), in.get(2)),
                GradCheck.randn(g, 1, 2, 3, 7), GradCheck.randn(g, 1, 5, 7), GradCheck.randn(g, 1, 5));
        GradCheck.check("linear_gelu without bias", in -> Linears.linearGelu(in.get(0), in.get(1), null),
                GradCheck.randn(g, 1, 4, 6), GradCheck.randn(g, 1, 3, 6));
    }

    @Test
    void linearSplitCutsTheLinearIntoViewsOfItsColumns() {
        Generator g = new Generator(8);
        Tensor x = Tensor.randn(g, 3, 4, 6), w = Tensor.randn(g, 9, 6), b = Tensor.randn(g, 9);
        Tensor whole = Linears.linear(x, w, b);
        Tensor[] parts = Linears.linearSplit(x, w, b, 2, 4, 3);
        assertEquals(3, parts.length);
        for (int i = 0, from = 0; i < parts.length; from += parts[i++].size(-1)) {
            assertArrayEquals(new int[] {3, 4, new int[] {2, 4, 3}[i]}, parts[i].shape());
            float[] expected = whole.narrow(-1, from, parts[i].size(-1)).toFloatArray(), actual = parts[i].toFloatArray();
            for (int j = 0; j < expected.length; j++) assertEquals(expected[j], actual[j], 1e-5, "group " + i + ", element " + j);
        }
    }

    @Test
    void linearSplitGradientsMatchFiniteDifferences() {
        Generator g = new Generator(9);
        GradCheck.check("linear_split", in -> {
            Tensor[] p = Linears.linearSplit(in.get(0), in.get(1), in.get(2), 2, 1, 3);
            return p[0].sum(-1, true).mul(p[1]).add(p[2].square().sum(-1, true));
        }, GradCheck.randn(g, 1, 2, 3, 7), GradCheck.randn(g, 1, 6, 7), GradCheck.randn(g, 1, 6));
        GradCheck.check("linear_split without bias, a group unused", in -> Linears.linearSplit(in.get(0), in.get(1), null, 2, 2, 2)[2],
                GradCheck.randn(g, 1, 4, 6), GradCheck.randn(g, 1, 6, 6));
    }

    @Test
    void groupSizesThatDoNotCoverTheWeightNameTheOp() {
        Tensor x = Tensor.zeros(4, 3), w = Tensor.zeros(6, 3);
        throwsMentioning(() -> Linears.linearSplit(x, w, null, 2, 2), "linear_split", "[2, 2]", "6 output rows");
        throwsMentioning(() -> Linears.linearSplit(x, w, null, 4, 3, -1), "linear_split", "positive", "[4, 3, -1]");
        throwsMentioning(() -> Linears.linearSplit(x, w, null), "linear_split", "[]");
        throwsMentioning(() -> Linears.linearSplit(x, Tensor.zeros(6, 5), null, 3, 3), "linear_split", "[4, 3]", "[6, 5]");
    }

    @Test
    void linearSwigluIsSiluOfOneLinearTimesTheOther() {
        Generator g = new Generator(6);
        Tensor x = Tensor.randn(g, 3, 4, 6), w1 = Tensor.randn(g, 5, 6), w3 = Tensor.randn(g, 5, 6);
        float[] expected = Linears.linear(x, w1, null).silu().mul(Linears.linear(x, w3, null)).toFloatArray();
        for (boolean grad : new boolean[] {false, true}) {
            Tensor xi = grad ? x.detach().requiresGrad(true) : x;
            Tensor y = Linears.linearSwiglu(xi, w1, w3);
            assertArrayEquals(new int[] {3, 4, 5}, y.shape());
            float[] actual = y.toFloatArray();
            for (int i = 0; i < expected.length; i++) assertEquals(expected[i], actual[i], 1e-5, "element " + i + (grad ? ", with gradients" : ""));
        }
    }

    @Test
    void linearSwigluGradientsMatchFiniteDifferences() {
        Generator g = new Generator(7);
        GradCheck.check("linear_swiglu", in -> Linears.linearSwiglu(in.get(0), in.get(1), in.get(2)),
                GradCheck.randn(g, 1, 2, 3, 7), GradCheck.randn(g, 1, 5, 7), GradCheck.randn(g, 1, 5, 7));
    }

    @Test
    void mismatchedShapesOfLinearSwigluNameTheOp() {
        Tensor x = Tensor.zeros(4, 3);
        throwsMentioning(() -> Linears.linearSwiglu(x, Tensor.zeros(2, 5), Tensor.zeros(2, 5)), "linear_swiglu", "[4, 3]", "[2, 5]");
        throwsMentioning(() -> Linears.linearSwiglu(x, Tensor.zeros(2, 3), Tensor.zeros(5, 3)), "linear_swiglu", "w1 [2, 3]", "w3 [5, 3]");
    }

    @Test
    void mismatchedShapesOfLinearGeluNameTheOp() {
        Tensor x = Tensor.zeros(4, 3);
        throwsMentioning(() -> Linears.linearGelu(x, Tensor.zeros(2, 5), null), "linear_gelu", "[4, 3]", "[2, 5]");
        throwsMentioning(() -> Linears.linearGelu(x, Tensor.zeros(2, 3), Tensor.zeros(3)), "linear_gelu", "bias [3]");
    }

    @Test
    void mismatchedShapesNameTheOpAndTheShapes() {
        Tensor x = Tensor.zeros(4, 3);
        throwsMentioning(() -> Linears.linear(x, Tensor.zeros(2, 5), null),
                "linear", "[4, 3]", "[2, 5]");
        throwsMentioning(() -> Linears.linear(x, Tensor.zeros(2, 3), Tensor.zeros(3)),
                "linear", "bias [3]");
        throwsMentioning(() -> Linears.linear(Tensor.scalar(1f), Tensor.zeros(2, 3), null),
                "linear", "weight [2, 3]");
    }

    private static void throwsMentioning(Executable call, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' should mention " + f);
    }

    @Test
    void theLinearFamilyIsKnown() {
        assertTrue(Families.all().contains(LinearKernels.FAMILY));
    }
}
