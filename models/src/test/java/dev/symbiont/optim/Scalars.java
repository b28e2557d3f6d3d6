package dev.symbiont.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Parameter;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Helpers for tests that drive one parameter with chosen gradients. */
final class Scalars {
    private Scalars() {}

    static Parameter param(float... values) { return new Parameter(Tensor.fromArray(values)); }

    static Map<String, Parameter> named(Parameter p) { return Map.of("w", p); }

    static void setGrad(Parameter p, float... grad) { p.value().setGrad(Tensor.fromArray(grad)); }

    static void assertClose(double[] expected, Parameter p, double tolerance, String what) {
        float[] actual = p.value().toFloatArray();
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], tolerance * Math.max(1, Math.abs(expected[i])), what + " [" + i + "]");
        }
    }

    /** The gradients a test feeds, step by step: mixed signs and magnitudes. */
    static final float[][] GRADS = {
            {0.5f, -1.5f, 2.0f},
            {0.25f, -0.75f, -1.0f},
            {-0.125f, 2.5f, 0.0f},
            {1.0f, 0.001f, 3.0f},
            {-2.0f, -0.5f, 0.75f}};

    static final float[] START = {1.0f, -2.0f, 0.5f};
}
