package dev.symbiont.core.fused.norm;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.function.BiFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** add_layer_norm against the composition it replaces (add, then layer_norm), and its errors. */
class AddLayerNormTest {
    private final Generator g = new Generator(13);

    private static final int[] D = {6};

    /** Leaves x, r, weight, bias; f builds the loss from them; returns their gradients in that order. */
    private Tensor[] gradients(long seed, BiFunction<Tensor[], Boolean, Tensor> f, boolean fused) {
        Generator gen = new Generator(seed);
        Tensor[] in = {Tensor.randn(gen, 2, 3, 6), Tensor.randn(gen, 2, 3, 6), Tensor.randn(gen, 6), Tensor.randn(gen, 6)};
        for (Tensor t : in) t.requiresGrad(true);
        f.apply(in, fused).backward();
        return new Tensor[] {in[0].grad(), in[1].grad(), in[2].grad(), in[3].grad()};
    }

    /** s and layer_norm(s), fused or composed. */
    private static Tensor[] sumAndNorm(Tensor[] in, boolean fused) {
        if (fused) {
            Normalization.AddNorm r = Normalization.addLayerNorm(in[0], in[1], D, in[2], in[3], 1e-5);
            return new Tensor[] {r.sum(), r.output()};
        }
        Tensor s = in[0].add(in[1]);
        return new Tensor[] {s, s.layerNorm(D, in[2], in[3], 1e-5)};
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

    @Test
    void gradientsMatchTheCompositionWhenTheSumFeedsTheResidualStreamToo() {
        // A pre-norm block: y = s + f(norm(s)); s's gradient comes from the stream and through the norm.
        assertSameGradients((in, fused) -> {
            Tensor[] sn = sumAndNorm(in, fused);
            return sn[0].add(sn[1].tanh()).square().sum();
        });
    }

    @Test
    void gradientsMatchTheCompositionWhenOnlyOneOutputIsUsed() {
        assertSameGradients((in, fused) -> sumAndNorm(in, fused)[1].square().sum());
        assertSameGradients((in, fused) -> sumAndNorm(in, fused)[0].square().sum());
    }

    @Test
    void backwardCanStartFromEitherOutput() {
        Tensor x = Tensor.randn(g, 3, 4).requiresGrad(true), r = Tensor.randn(g, 3, 4);
        Normalization.AddNorm out = Normalization.addLayerNorm(x, r, new int[] {4}, null, null, 1e-5);
        out.sum().sum().backward(null, true); // the graph is back-propagated again below, as retain_graph
        assertArrayEquals(Tensor.ones(3, 4).toFloatArray(), x.grad().toFloatArray(), 0f);
        x.zeroGrad();
        Tensor w = Tensor.randn(g, 3, 4);
        out.output().mul(w).sum().backward();
        Tensor xs = x.detach().requiresGrad(true);
        xs.add(r).layerNorm(new int[] {4}, null, null, 1e-5).mul(w).sum().backward();
        assertArrayEquals(xs.grad().toFloatArray(), x.grad().toFloatArray(), 1e-5f);
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
    }
}
