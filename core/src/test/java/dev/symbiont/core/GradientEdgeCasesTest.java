package dev.symbiont.core;

import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import static dev.symbiont.core.ReferenceTensors.t;
import static dev.symbiont.core.ReferenceTensors.seq;
import static dev.symbiont.core.ReferenceTensors.REF;
import static org.junit.jupiter.api.Assertions.*;

/** Gradients at the edges: a tensor used twice in one op, one-dimensional and broadcast matmul operands, pow at a zero base, ties in max, a gradient of the wrong dtype or backend. */
class GradientEdgeCasesTest {
    @Test
    void sameTensorTwiceInOneOpGetsBothGradients() {
        Tensor x = t(new float[] {1, -2, 3}, 3).requiresGrad(true);
        x.mul(x).sum().backward();
        assertArrayEquals(new float[] {2, -4, 6}, x.grad().toFloatArray(), 1e-6f);
        Tensor y = t(new float[] {1, 2, 3}, 3).requiresGrad(true);
        y.matmul(y).backward();
        assertArrayEquals(new float[] {2, 4, 6}, y.grad().toFloatArray(), 1e-6f);
        Tensor z = t(seq(4), 2, 2).requiresGrad(true);
        z.matmul(z).sum().backward();
        // d/dz sum(z z) = 1 z^T + z^T 1
        float[] zz = {1, 2, 3, 4};
        float[] exp = new float[4];
        for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) {
            // grad = ones @ z^T + z^T @ ones
            exp[i * 2 + j] = (zz[j * 2] + zz[j * 2 + 1]) + (zz[i] + zz[2 + i]);
        }
        assertArrayEquals(exp, z.grad().toFloatArray(), 1e-5f);
    }

    @Test
    void matmulGradientsWithOneDimensionalAndBroadcastOperands() {
        Tensor v = t(new float[] {1, 2}, 2).requiresGrad(true);
        Tensor b = t(seq(12), 2, 2, 3).requiresGrad(true);
        v.matmul(b).sum().backward();
        // d/dv = sum over batch and n of b[., k, n]
        assertArrayEquals(new float[] {1 + 2 + 3 + 7 + 8 + 9, 4 + 5 + 6 + 10 + 11 + 12}, v.grad().toFloatArray());
        assertArrayEquals(new float[] {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}, b.grad().toFloatArray());
    }

    @Test
    void powGradientAtZeroBaseIsFinite() {
        Tensor x = t(new float[] {0, 2}, 2).requiresGrad(true);
        x.pow(2.0).sum().backward();
        assertArrayEquals(new float[] {0, 4}, x.grad().toFloatArray());
        Tensor y = t(new float[] {0, 2}, 2).requiresGrad(true);
        y.pow(0.0).sum().backward();
        assertArrayEquals(new float[] {0, 0}, y.grad().toFloatArray());
    }

    @Test
    void maxGradientSplitsTiesAndFollowsKeepdim() {
        Tensor x = t(new float[] {1, 3, 3, 2, 0, 2}, 2, 3).requiresGrad(true);
        x.max(-1, false).mul(t(new float[] {1, 10}, 2)).sum().backward();
        assertArrayEquals(new float[] {0, 0.5f, 0.5f, 5, 0, 5}, x.grad().toFloatArray(), 1e-6f);
    }

    @Test
    void powExponentGradientAtZeroBaseIsZeroForNonNegativeExponents() {
        Tensor x = t(new float[] {0, 2, 0}, 3);
        Tensor e = t(new float[] {2, 1, 0}, 3).requiresGrad(true);
        x.pow(e).sum().backward();
        assertArrayEquals(new float[] {0, (float) (2 * Math.log(2)), 0}, e.grad().toFloatArray(), 1e-6f);
    }

    @Test
    void backwardRejectsAGradientOfAnotherDtypeOrBackend() {
        Tensor x = t(seq(3), 3).requiresGrad(true);
        Tensor y = x.mul(2.0);
        Tensor intGrad;
        try (var s = Backends.use(REF)) { intGrad = Tensor.fromArray(new int[] {1, 1, 1}); }
        var e = assertThrows(IllegalArgumentException.class, () -> y.backward(intGrad));
        assertTrue(e.getMessage().startsWith("backward: gradient is int32"), e.getMessage());
        Tensor elsewhere;
        try (var s = Backends.use(new ReferenceBackend())) { elsewhere = Tensor.ones(3); }
        assertThrows(IllegalArgumentException.class, () -> y.backward(elsewhere));
    }
}
