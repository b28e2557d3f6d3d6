package dev.symbiont.optim;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A test-only in-hidden-out tanh MLP built from raw parameters, so optimizer tests do not
 * depend on the nn layers. Parameter names: hidden.weight (in, hidden), hidden.bias (hidden),
 * out.weight (hidden, out), out.bias (out).
 */
public final class TinyMlp extends Module {
    /** x: (batch, in) → (batch, out). */
    public static final class Dense extends Module {
        final Parameter weight, bias;

        Dense(Generator gen, int in, int out) {
            weight = parameter("weight", Tensor.randn(gen, in, out).mul(1.0 / Math.sqrt(in)));
            bias = parameter("bias", Tensor.zeros(out));
        }

        Tensor forward(Tensor x) { return x.matmul(weight.value()).add(bias.value()); }
    }

    private final Dense hidden, out;

    public TinyMlp(int in, int hiddenSize, int outSize, long seed) {
        Generator gen = new Generator(seed);
        hidden = module("hidden", new Dense(gen, in, hiddenSize));
        out = module("out", new Dense(gen, hiddenSize, outSize));
    }

    /** x: (batch, in) → (batch, out). */
    public Tensor forward(Tensor x) { return out.forward(hidden.forward(x).tanh()); }

    /** Every parameter's value as float bits, in name order: for bit-exact comparisons. */
    public static List<int[]> bits(Module m) {
        List<int[]> out = new ArrayList<>();
        for (Map.Entry<String, Parameter> e : m.namedParameters().entrySet()) {
            float[] v = e.getValue().value().toFloatArray();
            int[] b = new int[v.length];
            for (int i = 0; i < v.length; i++) b[i] = Float.floatToRawIntBits(v[i]);
            out.add(b);
        }
        return out;
    }

    /** The four XOR inputs (4, 2). */
    public static Tensor xorInputs() { return Tensor.fromArray(new float[] {0, 0, 0, 1, 1, 0, 1, 1}, 4, 2); }

    /** The XOR classes (4) as int64 targets. */
    public static Tensor xorTargets() { return Tensor.fromArray(new long[] {0, 1, 1, 0}); }
}
