package dev.symbiont.core.autograd;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The engine itself: accumulation, shared subexpressions, grad mode, detach and its errors. */
class AutogradEngineTest {

    private static Tensor leaf(float... values) { return Tensor.fromArray(values, values.length).requiresGrad(true); }

    @Test
    void gradientsAccumulateAcrossTwoBackwardCalls() {
        Tensor x = leaf(1, 2, 3);
        x.mul(x).sum().backward();
        assertArrayEquals(new float[] {2, 4, 6}, x.grad().toFloatArray());
        x.mul(3.0).sum().backward();
        assertArrayEquals(new float[] {5, 7, 9}, x.grad().toFloatArray());
        x.zeroGrad();
        assertNull(x.grad());
    }

    @Test
    void sharedSubexpressionsSumTheirGradients() {
        Tensor x = leaf(0.5f, -1f);
        Tensor y = x.exp();
        // z = y * y + y  ->  dz/dx = (2y + 1) * y
        y.mul(y).add(y).sum().backward();
        float[] g = x.grad().toFloatArray();
        for (int i = 0; i < 2; i++) {
            double e = Math.exp(new float[] {0.5f, -1f}[i]);
            assertEquals((2 * e + 1) * e, g[i], 1e-5);
        }
    }

    @Test
    void diamondGraphVisitsEachNodeOnce() {
        Tensor x = leaf(2f);
        Tensor a = x.mul(3.0), b = x.square();
        Tensor c = a.mul(b);           // 3x * x^2 = 3x^3
        c.add(a).sum().backward();      // d/dx = 9x^2 + 3 = 39
        assertEquals(39f, x.grad().item(), 1e-5);
    }

    @Test
    void gradModeDisabledStopsRecordingAndRestoresThePreviousMode() {
        Tensor x = leaf(1, 2);
        assertTrue(GradMode.isEnabled());
        try (var off = GradMode.disabled()) {
            assertFalse(GradMode.isEnabled());
            Tensor y = x.mul(2.0);
            assertFalse(y.requiresGrad());
            assertNull(y.gradFn());
            try (var on = GradMode.enabled()) {
                assertTrue(x.mul(2.0).requiresGrad());
            }
            assertFalse(GradMode.isEnabled());
            try (var nested = GradMode.disabled()) {
                assertFalse(GradMode.isEnabled());
            }
            assertFalse(GradMode.isEnabled());
        }
        assertTrue(GradMode.isEnabled());
        assertTrue(x.mul(2.0).requiresGrad());
    }

    @Test
    void detachCutsTheGraphButSharesTheValues() {
        Tensor x = leaf(1, 2, 3);
        Tensor d = x.mul(2.0).detach();
        assertFalse(d.requiresGrad());
        assertNull(d.gradFn());
        assertArrayEquals(new float[] {2, 4, 6}, d.toFloatArray());
        Tensor y = x.mul(d);   // d is a constant here
        y.sum().backward();
        assertArrayEquals(new float[] {2, 4, 6}, x.grad().toFloatArray());
    }

    @Test
    void opsOnTensorsWithoutGradRecordNothing() {
        Tensor a = Tensor.fromArray(new float[] {1, 2}, 2);
        Tensor y = a.exp().mul(a);
        assertFalse(y.requiresGrad());
        assertTrue(y.isLeaf());
    }

    /**
     * A three-output op (x ↦ 2x, 3x, 4x) records one rule: it runs once with each output's summed
     * gradient — the first used twice, the second not at all (null), the third once.
     */
    @Test
    void aThreeOutputOpRunsItsRuleOnceWithEachOutputsGradient() {
        Tensor x = leaf(1, 2);
        Tensor a = x.detach().mul(2.0), b = x.detach().mul(3.0), c = x.detach().mul(4.0);
        java.util.List<float[][]> calls = new java.util.ArrayList<>(); // copies: gradients are valid during the call only
        Autograd.recordOutputs("triple", new Tensor[] {a, b, c}, grads -> {
            calls.add(new float[][] {grads[0].toFloatArray(), grads[1] == null ? null : grads[1].toFloatArray(), grads[2].toFloatArray()});
            Tensor dx = grads[0].mul(2.0).add(grads[2].mul(4.0));
            return new Tensor[] {grads[1] == null ? dx : dx.add(grads[1].mul(3.0))};
        }, x);
        a.add(a.mul(5.0)).add(c.square()).sum().backward();
        assertEquals(1, calls.size());
        assertArrayEquals(new float[] {6, 6}, calls.get(0)[0]);
        assertNull(calls.get(0)[1]);
        assertArrayEquals(new float[] {8, 16}, calls.get(0)[2]);
        // d/dx [2x + 10x + 16x²] = 12 + 32x
        assertArrayEquals(new float[] {44, 76}, x.grad().toFloatArray());
    }

    @Test
    void recordedOutputsNameTheirOp() {
        Tensor y = leaf(1, 2).softmax(0);
        assertEquals("softmaxBackward", y.gradFn().toString());
        assertFalse(y.isLeaf());
    }

    @Test
    void backwardOnANonScalarWithoutAGradientThrowsWithTheShape() {
        Tensor y = leaf(1, 2, 3).reshape(3, 1).exp();
        var e = assertThrows(IllegalArgumentException.class, y::backward);
        assertTrue(e.getMessage().contains("[3, 1]"), e.getMessage());
    }

    @Test
    void backwardWithAGradientOfTheWrongShapeThrows() {
        Tensor y = leaf(1, 2, 3).exp();
        var e = assertThrows(IllegalArgumentException.class, () -> y.backward(Tensor.ones(2)));
        assertTrue(e.getMessage().contains("[2]") && e.getMessage().contains("[3]"), e.getMessage());
    }

    @Test
    void backwardOnATensorThatDoesNotRequireGradThrows() {
        Tensor y = Tensor.ones(2).sum();
        var e = assertThrows(IllegalStateException.class, y::backward);
        assertTrue(e.getMessage().contains("backward"), e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"INT32", "INT64"})
    void requiresGradOnAnIntegerTensorThrows(DType type) {
        Tensor t = Tensor.zeros(3).to(type);
        var e = assertThrows(IllegalArgumentException.class, () -> t.requiresGrad(true));
        assertTrue(e.getMessage().contains(type.toString()), e.getMessage());
    }

    @Test
    void requiresGradCannotBeTurnedOffOnANonLeaf() {
        Tensor y = leaf(1).exp();
        assertThrows(IllegalStateException.class, () -> y.requiresGrad(false));
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BFLOAT16", "FLOAT16"})
    void halfRoundTripPassesTheGradientThroughUnchanged(DType half) {
        Tensor x = leaf(0.1f, -1.3f, 2.7f, 100f);
        Tensor w = Tensor.fromArray(new float[] {0.5f, -2f, 3f, 0.25f}, 4);
        x.to(half).to(DType.FLOAT32).mul(w).sum().backward();
        assertArrayEquals(w.toFloatArray(), x.grad().toFloatArray());
    }

    @Test
    void castToIntegerCutsTheGraph() {
        Tensor x = leaf(1.5f, 2.5f);
        assertFalse(x.to(DType.INT64).requiresGrad());
    }
}
