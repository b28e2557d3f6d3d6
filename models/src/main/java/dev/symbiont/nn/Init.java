package dev.symbiont.nn;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;

import java.util.Arrays;

/**
 * Seeded initialisers with torch.nn.init's formulas. Values are drawn on the current backend
 * from the generator's Philox stream, so a seed gives the same weights on every backend. Fans follow PyTorch: for a
 * weight (out, in, k...) fan_in = in·k..., fan_out = out·k....
 */
public final class Init {
    private Init() {}

    /** U(low, high): low + (high − low) · U[0, 1), drawn on the current backend. */
    public static Tensor uniform(Generator g, double low, double high, int... shape) {
        checkedNumel("uniform", shape);
        return Tensor.rand(g, shape).mul(high - low).add(low);
    }

    /** N(mean, std²): mean + std · N(0, 1), drawn on the current backend. */
    public static Tensor normal(Generator g, double mean, double std, int... shape) {
        checkedNumel("normal", shape);
        return Tensor.randn(g, shape).mul(std).add(mean);
    }

    /**
     * N(mean, std²) restricted to [low, high] (absolute bounds, as torch.nn.init.trunc_normal_,
     * whose defaults are ±2), drawn by rejection so the distribution is exactly truncated: the
     * values outside are redrawn from a fresh tensor until none is left. Each round reads one
     * count back to the host, which is fine for an initialiser.
     */
    public static Tensor truncatedNormal(Generator g, double mean, double std, double low, double high, int... shape) {
        if (!(low < high) || !(low <= mean + 4 * std && high >= mean - 4 * std)) {
            throw new IllegalArgumentException("truncatedNormal: bounds [" + low + ", " + high + "] must be ordered and within 4 std of mean "
                    + mean + " (std " + std + ")");
        }
        checkedNumel("truncatedNormal", shape);
        Tensor x = normal(g, mean, std, shape);
        while (true) {
            Tensor outside = x.lt(low).add(x.gt(high));
            if (outside.sum().item() == 0) return x;
            x = outside.where(normal(g, mean, std, shape), x);
        }
    }

    /** Glorot uniform: U(±gain·√(6 / (fan_in + fan_out))). */
    public static Tensor xavierUniform(Generator g, double gain, int... shape) {
        double bound = gain * Math.sqrt(6.0 / (fanIn("xavierUniform", shape) + fanOut(shape)));
        return uniform(g, -bound, bound, shape);
    }

    /** Glorot normal: N(0, gain²·2 / (fan_in + fan_out)). */
    public static Tensor xavierNormal(Generator g, double gain, int... shape) {
        return normal(g, 0, gain * Math.sqrt(2.0 / (fanIn("xavierNormal", shape) + fanOut(shape))), shape);
    }

    /**
     * He uniform over fan_in with leaky-ReLU slope {@code a}: U(±gain·√(3 / fan_in)),
     * gain = √(2 / (1 + a²)). a = √5 is PyTorch's default for Linear and Conv weights.
     */
    public static Tensor kaimingUniform(Generator g, double a, int... shape) {
        double bound = leakyReluGain(a) * Math.sqrt(3.0 / fanIn("kaimingUniform", shape));
        return uniform(g, -bound, bound, shape);
    }

    /** He normal over fan_in: N(0, gain² / fan_in), gain = √(2 / (1 + a²)). */
    public static Tensor kaimingNormal(Generator g, double a, int... shape) {
        return normal(g, 0, leakyReluGain(a) / Math.sqrt(fanIn("kaimingNormal", shape)), shape);
    }

    private static double leakyReluGain(double a) { return Math.sqrt(2.0 / (1 + a * a)); }

    /** fan_in of a weight shaped (out, in, receptive...); a 1-D shape's fan_in is its size. */
    public static int fanIn(String op, int... shape) {
        if (shape.length == 0) throw new IllegalArgumentException(op + ": fan_in needs at least 1 dim, got shape []");
        return shape.length == 1 ? shape[0] : shape[1] * receptive(shape);
    }

    public static int fanOut(int... shape) { return shape.length < 2 ? shape[0] : shape[0] * receptive(shape); }

    private static int receptive(int[] shape) {
        int r = 1;
        for (int i = 2; i < shape.length; i++) r *= shape[i];
        return r;
    }

    private static int checkedNumel(String op, int[] shape) {
        long n = 1;
        for (int d : shape) {
            if (d < 0) throw new IllegalArgumentException(op + ": negative dim in shape " + Arrays.toString(shape));
            n *= d;
            if (n > Integer.MAX_VALUE) throw new IllegalArgumentException(op + ": shape " + Arrays.toString(shape) + " has too many elements");
        }
        return (int) n;
    }
}
