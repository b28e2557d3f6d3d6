package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** add_layer_norm and add_rms_norm against the compositions they replace (add, then the norm), and their errors. */
class AddNormTest {
    private final Generator g = new Generator(13);

    private static final int[] D = {6};

    /** The norm fused with the residual add; RMS norm ignores the bias. */
    enum Kind {
        LAYER_NORM {
            Normalization.AddNorm fused(Tensor x, Tensor r, int[] shape, Tensor w, Tensor b) {
                return Normalization.addLayerNorm(x, r, shape, w, b, 1e-5);
            }

            Tensor norm(Tensor s, int[] shape, Tensor w, Tensor b) { return s.layerNorm(shape, w, b, 1e-5); }
        },
        RMS_NORM {
            Normalization.AddNorm fused(Tensor x, Tensor r, int[] shape, Tensor w, Tensor b) {
                return Normalization.addRmsNorm(x, r, shape, w, 1e-6);
            }

            Tensor norm(Tensor s, int[] shape, Tensor w, Tensor b) { return s.rmsNorm(shape, w, 1e-6); }
        };

        abstract Normalization.AddNorm fused(Tensor x, Tensor r, int[] shape, Tensor w, Tensor b);

        abstract Tensor norm(Tensor s, int[] shape, Tensor w, Tensor b);
    }

    /** Leaves x, r, weight, bias; f builds the loss from them; returns their gradients in that order. */
    private Tensor[] gradients(long seed, BiFunction<Tensor[], Boolean, Tensor> f, boolean fused) {
        Generator gen = new Generator(seed);
        Tensor[] in = {Tensor.randn(gen, 2, 3, 6), Tensor.randn(gen, 2, 3, 6), Tensor.randn(gen, 6), Tensor.randn(gen, 6)};
        for (Tensor t : in) t.requiresGrad(true);
        f.apply(in, fused).backward();
        return new Tensor[] {in[0].grad(), in[1].grad(), in[2].grad(), in[3].grad()};
    }

    /** s and the norm of s, fused or composed. */
    private static Tensor[] sumAndNorm(Kind kind, Tensor[] in, boolean fused) {
        if (fused) {
            Normalization.AddNorm r = kind.fused(in[0], in[1], D, in[2], in[3]);
            return new Tensor[] {r.sum(), r.output()};
        }
        Tensor s = in[0].add(in[1]);
        return new Tensor[] {s, kind.norm(s, D, in[2], in[3])};
    }

    private void assertSameGradients(BiFunction<Tensor[], Boolean, Tensor> loss) {
        Tensor[] composed = gradients(5, loss, false), fused = gradients(5, loss, true);
        for (int i = 0; i < composed.length; i++) {
            if (composed[i] == null) {
                assertNull(fused[i], "input " + i);
                continue;
            }
            assertArrayEquals(composed[i].toFloatArray(), fused[i].toFloatArray(), 1e-5f, "gradient of input " + i);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void gradientsMatchTheCompositionWhenTheSumFeedsTheResidualStreamToo(Kind kind) {
        // A pre-norm block: y = s + f(norm(s)); s's gradient comes from the stream and through the norm.
        assertSameGradients((in, fused) -> {
            Tensor[] sn = sumAndNorm(kind, in, fused);
            return sn[0].add(sn[1].tanh()).square().sum();
        });
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void gradientsMatchTheCompositionWhenOnlyOneOutputIsUsed(Kind kind) {
        assertSameGradients((in, fused) -> sumAndNorm(kind, in, fused)[1].square().sum());
        assertSameGradients((in, fused) -> sumAndNorm(kind, in, fused)[0].square().sum());
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void backwardCanStartFromEitherOutput(Kind kind) {
        Tensor x = Tensor.randn(g, 3, 4).requiresGrad(true), r = Tensor.randn(g, 3, 4);
        Normalization.AddNorm out = kind.fused(x, r, new int[] {4}, null, null);
        out.sum().sum().backward(null, true); // the graph is back-propagated again below, as retain_graph
        assertArrayEquals(Tensor.ones(3, 4).toFloatArray(), x.grad().toFloatArray(), 0f);
        x.zeroGrad();
        Tensor w = Tensor.randn(g, 3, 4);
        out.output().mul(w).sum().backward();
        Tensor xs = x.detach().requiresGrad(true);
        kind.norm(xs.add(r), new int[] {4}, null, null).mul(w).sum().backward();
        assertArrayEquals(xs.grad().toFloatArray(), x.grad().toFloatArray(), 1e-5f);
    }

    @Test
    void addRmsNormIsTheRmsNormOfTheSumWithoutABias() {
        Tensor x = Tensor.randn(g, 2, 3, 5), r = Tensor.randn(g, 2, 3, 5), w = Tensor.randn(g, 5);
        Normalization.AddNorm out = Normalization.addRmsNorm(x, r, new int[] {5}, w, 1e-6);
        Tensor s = x.add(r);
        assertArrayEquals(s.toFloatArray(), out.sum().toFloatArray(), 0f);
        assertArrayEquals(s.rmsNorm(new int[] {5}, w, 1e-6).toFloatArray(), out.output().toFloatArray(), 1e-6f);
        assertArrayEquals(new int[] {2, 3, 5}, out.output().shape());
    }

    private static void throwsMentioning(Executable call, String... fragments) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        for (String f : fragments) assertTrue(e.getMessage().contains(f), "'" + e.getMessage() + "' does not mention '" + f + "'");
    }

    @Test
    void rejectsAResidualOfAnotherShapeAndAMismatchedNormalizedShape() {
        Tensor x = Tensor.randn(g, 2, 5);
        throwsMentioning(() -> Normalization.addLayerNorm(x, Tensor.randn(g, 1, 5), new int[] {5}, null, null, 1e-5),
                "add_layer_norm", "[2, 5]", "[1, 5]");
        throwsMentioning(() -> Normalization.addLayerNorm(x, Tensor.randn(g, 2, 5), new int[] {4}, null, null, 1e-5),
                "add_layer_norm", "[4]", "[2, 5]");
        throwsMentioning(() -> Normalization.addLayerNorm(x, Tensor.randn(g, 2, 5), new int[] {5}, Tensor.ones(4), null, 1e-5),
                "add_layer_norm", "[4]", "[5]");
        throwsMentioning(() -> Normalization.addRmsNorm(x, Tensor.randn(g, 2, 4), new int[] {5}, null, 1e-6),
                "add_rms_norm", "[2, 5]", "[2, 4]");
        throwsMentioning(() -> Normalization.addRmsNorm(x, Tensor.randn(g, 2, 5), new int[] {5}, Tensor.ones(3), 1e-6),
                "add_rms_norm", "[3]", "[5]");
        throwsMentioning(() -> Normalization.addRmsNorm(x, Tensor.randn(g, 2, 5).to(dev.symbiont.core.DType.BFLOAT16),
                new int[] {5}, null, 1e-6), "add_rms_norm", "float32", "bfloat16");
    }
}
