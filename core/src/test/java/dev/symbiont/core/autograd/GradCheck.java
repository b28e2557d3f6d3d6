package dev.symbiont.core.autograd;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Compares autograd's gradients with central finite differences in float32.
 *
 * <p>The checked scalar is {@code sum(f(inputs) * w)} for fixed random weights {@code w}, so
 * every output element matters; it is summed on the host in double so that only the op's own
 * float32 rounding is in the difference quotient. Inputs should be of small magnitude and away
 * from kinks (0 for relu/abs, ties for max/min).
 */
public final class GradCheck {
    /** Step of the central difference. */
    public static final double EPS = 5e-3;
    public static final double RTOL = 1e-2;
    public static final double ATOL = 2e-3;

    private GradCheck() {}

    /** One input: its values, shape, and whether its gradient is checked. */
    public record Input(float[] values, int[] shape, boolean differentiable) {
        public static Input of(Tensor t) { return new Input(t.toFloatArray(), t.shape(), true); }
        public static Input fixed(Tensor t) { return new Input(t.toFloatArray(), t.shape(), false); }
    }

    /** Standard-normal values of the given shape scaled by {@code scale}. */
    public static Input randn(Generator g, double scale, int... shape) {
        float[] v = new float[dev.symbiont.core.Layout.numel(shape)];
        for (int i = 0; i < v.length; i++) v[i] = (float) (g.nextGaussian() * scale);
        return new Input(v, shape, true);
    }

    /** Values uniform in [lo, hi). */
    public static Input uniform(Generator g, double lo, double hi, int... shape) {
        float[] v = new float[dev.symbiont.core.Layout.numel(shape)];
        for (int i = 0; i < v.length; i++) v[i] = (float) (lo + (hi - lo) * g.nextDouble());
        return new Input(v, shape, true);
    }

    /** Values whose magnitude is in [0.2, 1.2) with random signs: away from the kink at 0. */
    public static Input awayFromZero(Generator g, int... shape) {
        Input u = uniform(g, 0.2, 1.2, shape);
        for (int i = 0; i < u.values.length; i++) if (g.nextDouble() < 0.5) u.values[i] = -u.values[i];
        return u;
    }

    /** A shuffled, well separated set of values (distinct by at least 0.1): no ties for max/min/topk. */
    public static Input distinct(Generator g, int... shape) {
        int n = dev.symbiont.core.Layout.numel(shape);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) ((i - n / 2.0) * 0.1);
        for (int i = n - 1; i > 0; i--) {
            int j = g.nextInt(i + 1);
            float t = v[i]; v[i] = v[j]; v[j] = t;
        }
        return new Input(v, shape, true);
    }

    /** Checks the gradients of {@code f} for every differentiable input, on the current backend. */
    public static void check(String what, Function<List<Tensor>, Tensor> f, Input... inputs) {
        check(what, Backends.current(), f, inputs);
    }

    public static void check(String what, Backend backend, Function<List<Tensor>, Tensor> f, Input... inputs) {
        try (var scope = Backends.use(backend)) {
            List<Tensor> leaves = build(inputs, -1, -1, 0);
            Tensor out = f.apply(leaves);
            float[] w = weights(out.numel());
            out.backward(Tensor.fromArray(w, out.shape()));
            for (int i = 0; i < inputs.length; i++) {
                if (!inputs[i].differentiable) continue;
                Tensor grad = leaves.get(i).grad();
                assertNotNull(grad, what + ": input " + i + " got no gradient");
                float[] analytic = grad.toFloatArray();
                for (int j = 0; j < analytic.length; j++) {
                    double plus = objective(f, build(inputs, i, j, EPS), w);
                    double minus = objective(f, build(inputs, i, j, -EPS), w);
                    float x = inputs[i].values[j];
                    double step = (double) (float) (x + EPS) - (double) (float) (x - EPS);
                    double numeric = (plus - minus) / step;
                    double diff = Math.abs(numeric - analytic[j]);
                    if (diff > ATOL + RTOL * Math.max(Math.abs(numeric), Math.abs(analytic[j]))) {
                        fail(what + ": d/d input " + i + " element " + j + " (of shape " + Arrays.toString(inputs[i].shape)
                                + "): autograd " + analytic[j] + ", finite difference " + numeric);
                    }
                }
            }
        }
    }

    private static double objective(Function<List<Tensor>, Tensor> f, List<Tensor> inputs, float[] w) {
        float[] y;
        try (var scope = GradMode.disabled()) { y = f.apply(inputs).toFloatArray(); }
        double s = 0;
        for (int i = 0; i < y.length; i++) s += (double) y[i] * w[i];
        return s;
    }

    /** The inputs as tensors, element {@code j} of input {@code i} moved by {@code delta}. */
    private static List<Tensor> build(Input[] inputs, int i, int j, double delta) {
        List<Tensor> out = new ArrayList<>();
        for (int k = 0; k < inputs.length; k++) {
            float[] v = inputs[k].values;
            if (k == i) { v = v.clone(); v[j] = (float) (v[j] + delta); }
            Tensor t = Tensor.fromArray(v, inputs[k].shape);
            if (inputs[k].differentiable && delta == 0) t.requiresGrad(true);
            out.add(t);
        }
        return out;
    }

    private static float[] weights(int n) {
        Generator g = new Generator(1234);
        float[] w = new float[n];
        for (int i = 0; i < n; i++) w[i] = (float) (0.5 + g.nextDouble()) * (g.nextDouble() < 0.5 ? -1 : 1);
        return w;
    }
}
