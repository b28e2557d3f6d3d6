package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.reference.SpecialFunctions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.function.DoubleUnaryOperator;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.SIZES;
import static dev.symbiont.cpu.Differential.activation;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.tensor;
import static dev.symbiont.cpu.Differential.upload;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The polynomial activations (erf, GELU, SiLU, softplus, sigmoid) and the fused activation
 * gradients of the CPU backend, against the reference and against double precision.
 */
class CpuActivationTest {

    /** A dense grid over [−20, 20] and a log grid of ±10⁻⁴⁰…10³⁰, then the special values. */
    private static float[] sweep() {
        int lin = 40_001, logs = 7_001;
        float[] x = new float[lin + 2 * logs + 8];
        int i = 0;
        for (int k = 0; k < lin; k++) x[i++] = -20f + 40f * k / (lin - 1);
        for (int k = 0; k < logs; k++) {
            float v = (float) Math.pow(10, -40 + 70.0 * k / (logs - 1));
            x[i++] = v;
            x[i++] = -v;
        }
        float[] special = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, Float.MIN_VALUE,
                Float.MAX_VALUE, -Float.MAX_VALUE};
        System.arraycopy(special, 0, x, i, special.length);
        return x;
    }

    /** Largest |cpu − ref| in ulps of the reference (ulps of subnormals counted as Float.MIN_NORMAL's). */
    private static double maxUlps(String what, float[] x, float[] ref, float[] cpu) {
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            if (Float.isNaN(ref[i]) || Float.isInfinite(ref[i])) {
                if (Float.compare(ref[i], cpu[i]) != 0 && !(Float.isNaN(ref[i]) && Float.isNaN(cpu[i]))) {
                    fail(what + " at x=" + x[i] + ": " + cpu[i] + ", expected " + ref[i]);
                }
                continue;
            }
            worst = Math.max(worst, Math.abs(ref[i] - cpu[i]) / Math.max(Math.ulp(ref[i]), Float.MIN_NORMAL));
        }
        return worst;
    }

    @ParameterizedTest
    @EnumSource(value = UnaryOp.class, names = {"ERF", "GELU_ERF", "SILU", "SIGMOID", "SOFTPLUS"})
    void polynomialActivationsStayWithinEightUlpsOfTheReferenceOverTheFloatRange(UnaryOp op) {
        float[] x = sweep();
        Layout l = Layout.contiguous(x.length);
        float[] ref = read(REF, REF.unary(op, upload(REF, x), l), x.length);
        float[] cpu = read(CPU, CPU.unary(op, upload(CPU, x), l), x.length);
        double ulps = maxUlps(op.toString(), x, ref, cpu);
        assertTrue(ulps <= 8, op + ": " + ulps + " ulps");
    }

    // ---- fused gradients ------------------------------------------------------------------------

    private enum Grad {
        GELU_ERF(x -> 0.5 * SpecialFunctions.erfc(-x / Math.sqrt(2)) + x * Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI)),
        GELU_TANH(x -> {
            double c = Math.sqrt(2 / Math.PI), t = Math.tanh(c * (x + 0.044715 * x * x * x));
            return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x);
        }),
        SILU(x -> {
            double s = 1 / (1 + Math.exp(-x));
            return s * (1 + x * (1 - s));
        });

        final DoubleUnaryOperator exact;

        Grad(DoubleUnaryOperator exact) { this.exact = exact; }

        Tensor run(dev.symbiont.core.backend.Backend b, Tensor x, Tensor g) {
            return this == SILU ? activation(b).siluBackward(x, g) : activation(b).geluBackward(x, g, this == GELU_TANH);
        }
    }

    /** The gradient on both backends (the reference runs its composite default); inputs in the given layout. */
    private static float[][] both(Grad grad, float[] x, float[] g, Layout xl, Layout gl) {
        Tensor cpu = grad.run(CPU, tensor(CPU, x, xl), tensor(CPU, g, gl));
        Tensor ref;
        try (var scope = Backends.use(REF)) {
            ref = grad.run(REF, tensor(REF, x, xl), tensor(REF, g, gl));
        }
        return new float[][] {read(ref), read(cpu)};
    }

    @ParameterizedTest
    @EnumSource(Grad.class)
    void fusedGradientMatchesTheReferenceCompositeAtAwkwardSizes(Grad grad) {
        // The composite rounds 0.5·(1 + erf) and 0.5·(1 + tanh) near 1 in float: ~1e-7 absolute per unit of g.
        for (int n : SIZES) {
            float[] x = random(n, n, 12f), g = random(n + 1, n, 1f);
            Layout l = Layout.contiguous(n);
            float[][] r = both(grad, x, g, l, l);
            assertClose(grad + " n=" + n, r[0], r[1], 1e-5, 1e-6);
        }
    }

    @ParameterizedTest
    @EnumSource(Grad.class)
    void fusedGradientIsWithinAFewUnitsOfTwoToTheMinus24OfDoublePrecision(Grad grad) {
        float[] x = sweep();
        float[] g = new float[x.length];
        java.util.Arrays.fill(g, 1f);
        Layout l = Layout.contiguous(x.length);
        float[] cpu = read(grad.run(CPU, tensor(CPU, x, l), tensor(CPU, g, l)));
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            double exact = grad.exact.applyAsDouble(x[i]);
            if (!Double.isFinite(exact) || Math.abs(x[i]) > 1e15) continue; // NaN cases: compared with the reference below
            // absolute against the derivative's O(1) scale: it crosses zero, where relative error means nothing
            worst = Math.max(worst, Math.abs(cpu[i] - exact) / Math.max(1, Math.abs(exact)) / 0x1p-24);
        }
        assertTrue(worst <= 8, grad + ": " + worst + " units of 2^-24");
    }

    @ParameterizedTest
    @EnumSource(Grad.class)
    void fusedGradientKeepsSpecialValuesLikeTheReference(Grad grad) {
        float[] x = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0f, -0f, 1e-30f, -1e-30f,
                88f, -88f, 100f, -100f, 9f, -9f, 15f, -15f, 1e30f, -1e30f, Float.MIN_VALUE};
        float[] g = random(5, x.length, 2f);
        Layout l = Layout.contiguous(x.length);
        float[][] r = both(grad, x, g, l, l);
        assertClose(grad + " special", r[0], r[1], 1e-5, 1e-6);
    }

    @ParameterizedTest
    @EnumSource(Grad.class)
    void stridedOrBroadcastOperandsMatchTheReference(Grad grad) {
        float[] x = random(7, 31 * 13, 4f), g = random(8, 31 * 13, 1f);
        Layout contiguous = Layout.contiguous(31, 13);
        Layout transposed = new Layout(new int[] {31, 13}, new int[] {1, 31}, 0);
        Layout broadcast = new Layout(new int[] {31, 13}, new int[] {0, 1}, 2);
        float[][] r = both(grad, x, g, transposed, contiguous);
        assertClose(grad + " transposed x", r[0], r[1], 1e-5, 1e-6);
        r = both(grad, x, g, contiguous, broadcast);
        assertClose(grad + " broadcast g", r[0], r[1], 1e-5, 1e-6);
    }

    @Test
    void geluAutogradUsesTheFusedGradient() {
        float[] x = random(11, 4098, 6f);
        Tensor xc = tensor(CPU, x, Layout.contiguous(4098)).requiresGrad(true);
        xc.gelu().sum().backward();
        float[] expected = new float[x.length];
        for (int i = 0; i < x.length; i++) expected[i] = (float) Grad.GELU_ERF.exact.applyAsDouble(x[i]);
        assertClose("d sum(gelu)/dx", expected, read(xc.grad()), 1e-6, 4e-7);
    }
}
