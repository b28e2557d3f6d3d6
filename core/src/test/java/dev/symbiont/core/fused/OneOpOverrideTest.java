package dev.symbiont.core.fused;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.linear.LinearConformance;
import dev.symbiont.core.fused.linear.LinearKernels;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.core.fused.linear.ReferenceLinear;
import dev.symbiont.core.fused.norm.NormConformance;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.norm.Normalization;
import dev.symbiont.core.fused.norm.ReferenceNorm;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A backend overrides one op of a fused family and inherits the reference for the others: the
 * override runs for its op, every other op runs the inherited reference (the same bits as a
 * backend without kernels), and the backend passes the family's conformance group.
 */
class OneOpOverrideTest {

    /** The norm family with only softmax replaced, counted. */
    static final class SoftmaxOnly extends ReferenceNorm {
        int calls;

        @Override
        public Tensor softmax(Tensor x, int dim) {
            calls++;
            return super.softmax(x, dim);
        }
    }

    /** The linear family with only the forward product replaced, counted. */
    static final class LinearOnly extends ReferenceLinear {
        int calls;

        @Override
        public Tensor linear(Tensor x, Tensor weight, Tensor bias) {
            calls++;
            return super.linear(x, weight, bias);
        }
    }

    /** A reference backend whose norm and linear families are one override each. */
    static final class OneOpBackend extends ReferenceBackend {
        final SoftmaxOnly norm = new SoftmaxOnly();
        final LinearOnly linear = new LinearOnly();

        @Override public String name() { return "one-op"; }

        @Override
        public <K> K fused(Family<K> family) {
            if (family == NormKernels.FAMILY) return family.contract().cast(norm);
            if (family == LinearKernels.FAMILY) return family.contract().cast(linear);
            return null;
        }
    }

    /** Values and gradients of f's output and its leaves on {@code backend}, inputs from one seed. */
    private static List<float[]> run(Backend backend, Function<Tensor[], Tensor> f, int[]... shapes) {
        try (var scope = Backends.use(backend)) {
            Generator g = new Generator(9);
            Tensor[] in = new Tensor[shapes.length];
            for (int i = 0; i < shapes.length; i++) in[i] = Tensor.randn(g, shapes[i]).requiresGrad(true);
            Tensor y = f.apply(in);
            y.backward(Tensor.randn(g, y.shape()));
            List<float[]> out = new java.util.ArrayList<>(List.of(y.toFloatArray()));
            for (Tensor t : in) out.add(t.grad().toFloatArray());
            return out;
        }
    }

    /** f on the backend gives a plain reference backend's values and gradients to the bit. */
    private static void assertSameBitsAsTheReference(String what, OneOpBackend backend, Function<Tensor[], Tensor> f, int[]... shapes) {
        List<float[]> expected = run(new ReferenceBackend(), f, shapes), actual = run(backend, f, shapes);
        for (int i = 0; i < expected.size(); i++) assertArrayEquals(expected.get(i), actual.get(i), 0f, what + ", result " + i);
    }

    @Test
    void theSoftmaxOverrideRunsForSoftmaxAndTheInheritedReferenceForEveryOtherNormOp() {
        OneOpBackend backend = new OneOpBackend();
        assertSame(backend.norm, FusedKernels.of(NormKernels.FAMILY, backend), "the backend's kernels serve the whole family");
        assertSameBitsAsTheReference("softmax", backend, in -> in[0].softmax(-1), new int[] {4, 9});
        assertEquals(1, backend.norm.calls, "softmax ran the override");

        int[] x = {3, 4, 6}, d = {6};
        assertSameBitsAsTheReference("log_softmax", backend, in -> in[0].logSoftmax(-1), x);
        assertSameBitsAsTheReference("layer_norm", backend, in -> in[0].layerNorm(d, in[1], in[2], 1e-5), x, d, d);
        assertSameBitsAsTheReference("rms_norm", backend, in -> in[0].rmsNorm(d, in[1], 1e-6), x, d);
        assertSameBitsAsTheReference("add_layer_norm", backend, in -> {
            Normalization.AddNorm r = Normalization.addLayerNorm(in[0], in[1], d, in[2], in[3], 1e-5);
            return r.output().mul(r.sum());
        }, x, x, d, d);
        assertSameBitsAsTheReference("add_rms_norm", backend, in -> {
            Normalization.AddNorm r = Normalization.addRmsNorm(in[0], in[1], d, in[2], 1e-6);
            return r.output().mul(r.sum());
        }, x, x, d);
        assertEquals(1, backend.norm.calls, "no other op of the family went through softmax");
    }

    @Test
    void theLinearOverrideServesLinearGeluThroughVirtualDispatchAndLeavesTheBackwardsInherited() {
        OneOpBackend backend = new OneOpBackend();
        int[] x = {5, 7}, w = {4, 7}, b = {4};
        assertSameBitsAsTheReference("linear", backend, in -> Linears.linear(in[0], in[1], in[2]), x, w, b);
        assertEquals(1, backend.linear.calls, "linear ran the override once; its backward is inherited");
        // the reference's linear_gelu is its linear, then GELU: the override of the part serves the composite
        assertSameBitsAsTheReference("linear_gelu", backend, in -> Linears.linearGelu(in[0], in[1], in[2]), x, w, b);
        assertEquals(2, backend.linear.calls, "linear_gelu called the overridden linear");
        assertSameBitsAsTheReference("linear_split", backend, in -> Tensor.cat(List.of(Linears.linearSplit(in[0], in[1], in[2], 1, 3)), -1),
                x, w, b);
        assertEquals(3, backend.linear.calls);
    }

    @Test
    void everyFamilysReferenceIsOpenStatelessAndConstructibleWithoutArguments() throws ReflectiveOperationException {
        for (Family<?> family : Families.all()) {
            Class<?> reference = family.reference().getClass();
            String name = family + "'s reference " + reference.getSimpleName();
            assertTrue(Modifier.isPublic(reference.getModifiers()), name + " is public");
            assertFalse(Modifier.isFinal(reference.getModifiers()), name + " can be extended");
            assertTrue(Modifier.isPublic(reference.getConstructor().getModifiers()), name + " has a public no-arg constructor");
            assertTrue(Arrays.stream(reference.getDeclaredFields()).allMatch(f -> Modifier.isStatic(f.getModifiers())),
                    name + " holds no per-instance state");
            assertTrue(family.contract().isInstance(reference.getConstructor().newInstance()), name + " implements " + family.contract());
        }
    }

    @Nested
    class NormFamily extends NormConformance {
        @Override protected Backend backend() { return new OneOpBackend(); }
    }

    @Nested
    class LinearFamily extends LinearConformance {
        @Override protected Backend backend() { return new OneOpBackend(); }
    }
}
