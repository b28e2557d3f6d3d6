package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.core.reference.SpecialFunctions;
import dev.symbiont.cpu.gemm.GemmPath;
import dev.symbiont.cpu.kernels.VectorActivationGrads;
import dev.symbiont.cpu.kernels.VectorElementwise;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;

import static dev.symbiont.cpu.Differential.SIZES;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.random;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The CPU's linear_gelu gives the bits of the unfused linear then GELU — forward and every
 * gradient — so a model that switches to it trains along the same trajectory; its one-pass
 * GELU + GELU′ kernel gives the bits of the GELU primitive and of the activation gradient.
 */
class CpuLinearGeluTest {

    @ParameterizedTest(name = "rows {0}, in {1}, out {2}")
    @CsvSource({"1, 1, 1", "37, 19, 23", "64, 128, 512", "130, 33, 70"})
    void fusedEqualsLinearThenGeluToTheBit(int rows, int in, int out) {
        for (Backend backend : List.of(new CpuBackend(), new CpuBackend(GemmPath.EJML, false))) {
            try (var use = Backends.use(backend)) {
                Generator g = new Generator(rows * 31L + in);
                Tensor x = Tensor.randn(g, rows, in).mul(2).requiresGrad(true);
                Tensor w = Tensor.randn(g, out, in).requiresGrad(true), b = Tensor.randn(g, out).requiresGrad(true);
                Tensor gradY = Tensor.randn(g, rows, out);
                Tensor fused = Linears.linearGelu(x, w, b);
                fused.mul(gradY).sum().backward();
                float[][] fusedGrads = {x.grad().toFloatArray(), w.grad().toFloatArray(), b.grad().toFloatArray()};
                x.zeroGrad();
                w.zeroGrad();
                b.zeroGrad();
                Tensor unfused = Linears.linear(x, w, b).gelu();
                unfused.mul(gradY).sum().backward();
                String what = backend + " " + rows + "x" + in + "→" + out;
                assertArrayEquals(unfused.toFloatArray(), fused.toFloatArray(), what + " output");
                assertArrayEquals(x.grad().toFloatArray(), fusedGrads[0], what + " input gradient");
                assertArrayEquals(w.grad().toFloatArray(), fusedGrads[1], what + " weight gradient");
                assertArrayEquals(b.grad().toFloatArray(), fusedGrads[2], what + " bias gradient");
            }
        }
    }

    @Test
    void geluWithGradientEqualsTheGeluPrimitiveAndTheActivationGradient() {
        for (int n : SIZES) {
            float[] x = random(n, n, 6f);
            x[0] = n % 2 == 0 ? Float.NaN : Float.NEGATIVE_INFINITY;
            float[] gelu = new float[n], grad = new float[n], ones = new float[n];
            Arrays.fill(ones, 1f);
            VectorElementwise.unary(UnaryOp.GELU_ERF, x, 0, gelu, n);
            VectorActivationGrads.backward(UnaryOp.GELU_ERF, x, 0, ones, 0, grad, n);
            float[] y = new float[n + 3], d = new float[n];
            VectorActivationGrads.geluErfWithGrad(x, 0, y, 3, d, n);
            assertArrayEquals(gelu, Arrays.copyOfRange(y, 3, n + 3), "GELU, n = " + n);
            assertArrayEquals(grad, d, "GELU', n = " + n);
            float[] inPlace = x.clone();
            VectorActivationGrads.geluErfWithGrad(inPlace, 0, inPlace, 0, d, n);
            assertArrayEquals(gelu, inPlace, "GELU in place, n = " + n);
        }
    }

    @Test
    void underNoGradTheFusedOpGivesTheSameValues() {
        try (var use = Backends.use(new CpuBackend()); var off = GradMode.disabled()) {
            Generator g = new Generator(9);
            Tensor x = Tensor.randn(g, 2, 9, 13), w = Tensor.randn(g, 21, 13), b = Tensor.randn(g, 21);
            Tensor fused = Linears.linearGelu(x, w, b);
            assertArrayEquals(new int[] {2, 9, 21}, fused.shape());
            assertArrayEquals(Linears.linear(x, w, b).gelu().toFloatArray(), fused.toFloatArray());
            assertFalse(fused.requiresGrad());
        }
    }

    @Test
    void theFusedOpIsCloseToDoublePrecisionGelu() {
        try (var use = Backends.use(new CpuBackend())) {
            Generator g = new Generator(2);
            Tensor x = Tensor.randn(g, 5, 7), w = Tensor.randn(g, 3, 7);
            float[] z = Linears.linear(x, w, null).toFloatArray(), y = Linears.linearGelu(x, w, null).toFloatArray();
            float[] expected = new float[z.length];
            for (int i = 0; i < z.length; i++) expected[i] = (float) (0.5 * z[i] * (1 + SpecialFunctions.erf(z[i] / Math.sqrt(2))));
            assertClose("linear_gelu vs double GELU", expected, y, 1e-5, 1e-6);
        }
    }
}
