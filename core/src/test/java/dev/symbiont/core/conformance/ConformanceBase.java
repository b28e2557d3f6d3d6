package dev.symbiont.core.conformance;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.reference.ReferenceBackend;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The shared machinery of the backend conformance kit. A backend's test class extends one of
 * the op-family kits ({@link ElementwiseConformance}, {@link ReductionConformance}, ...) and
 * implements {@link #backend()}; every test then runs one computation twice, on the backend
 * under test and on a fresh {@link ReferenceBackend}, with inputs drawn from the same seeded
 * {@link Generator}, and compares the forward values and the gradients of every input.
 *
 * <p>Gradients are taken with {@code out.backward(w)} for a fixed random {@code w}, so every
 * output element contributes to every gradient.
 */
public abstract class ConformanceBase {
    /** Tolerance for elementwise ops, reductions over few elements and the fused ops. */
    protected static final Tolerance ELEMENTWISE = new Tolerance(1e-5, 1e-5);
    /** Tolerance for ops whose result sums many terms (long reductions, norms over wide rows). */
    protected static final Tolerance ACCUMULATING = new Tolerance(1e-4, 1e-4);
    /** Exact equality: indices, masks, casts, copies. */
    protected static final Tolerance EXACT = new Tolerance(0, 0);

    private final ReferenceBackend reference = new ReferenceBackend();

    /** The backend under test. It must not be the kit's own reference instance. */
    protected abstract Backend backend();

    /** The trusted twin the backend is compared with. */
    protected final Backend reference() { return reference; }

    /** Matmul with inner size k: float32 rounding grows with the number of products summed. */
    protected static Tolerance matmulTolerance(int k) {
        double t = 1e-5 * Math.max(1, Math.sqrt(k)) * 4;
        return new Tolerance(t, t);
    }

    /**
     * A reduction over n elements: the reference sums in double, a fast backend in float32,
     * whose rounding grows about linearly with n for values of unit size.
     */
    protected static Tolerance reductionTolerance(int n) {
        return new Tolerance(1e-4, 1e-5 + 5e-7 * n);
    }

    // ---- running a computation on both backends ---------------------------------------------

    /** A computation over inputs drawn from {@link Inputs}; it returns one tensor. */
    @FunctionalInterface
    public interface Computation {
        Tensor apply(Inputs in);
    }

    /** |actual - expected| <= abs + rel * |expected| for every element. */
    public record Tolerance(double rel, double abs) {
        boolean accepts(float expected, float actual) {
            if (Float.isNaN(expected)) return Float.isNaN(actual);
            if (Float.isInfinite(expected)) return expected == actual;
            return Math.abs((double) actual - expected) <= abs + rel * Math.abs(expected);
        }
    }

    /** What one run produced: the output's shape, dtype and values, and each leaf's gradient. */
    public record Outcome(int[] shape, DType dtype, float[] values, List<float[]> grads) {}

    /** Runs {@code c} on the backend under test and on the reference and compares everything. */
    protected final void assertMatchesReference(String what, Computation c, Tolerance tolerance) {
        assertMatchesReference(what, c, tolerance, tolerance);
    }

    /** As above with a separate tolerance for the gradients. */
    protected final void assertMatchesReference(String what, Computation c, Tolerance forward, Tolerance backward) {
        assertOutcomesClose(what, run(reference(), c), run(backend(), c), forward, backward);
    }

    /** Two runs' shapes, dtypes, values and gradients agree: {@code actual} within the tolerances of {@code expected}. */
    protected final void assertOutcomesClose(String what, Outcome expected, Outcome actual, Tolerance forward, Tolerance backward) {
        assertArrayEquals(expected.shape(), actual.shape(), what + ": output shape");
        assertEquals(expected.dtype(), actual.dtype(), what + ": output dtype");
        assertClose(what + ": forward", expected.values(), actual.values(), forward);
        assertEquals(expected.grads().size(), actual.grads().size(), what + ": number of inputs");
        for (int i = 0; i < expected.grads().size(); i++) {
            float[] ge = expected.grads().get(i), ga = actual.grads().get(i);
            if (ge == null) {
                assertTrue(ga == null, what + ": input " + i + " has a gradient only on " + backend().name());
                continue;
            }
            if (ga == null) fail(what + ": input " + i + " has no gradient on " + backend().name());
            assertClose(what + ": gradient of input " + i, ge, ga, backward);
        }
    }

    /** Runs the computation with {@code backend} current, fresh inputs from seed 42, and back-propagates. */
    protected final Outcome run(Backend backend, Computation c) {
        try (var scope = Backends.use(backend)) {
            Inputs in = new Inputs(new Generator(42));
            Tensor out = c.apply(in);
            assertTrue(out.backend() == backend, "output lives on " + out.backend().name() + ", not " + backend.name());
            float[] values = out.toFloatArray();
            List<float[]> grads = new ArrayList<>();
            if (out.requiresGrad() && out.dtype() == DType.FLOAT32) {
                Tensor weights = Tensor.randn(new Generator(7), out.shape());
                out.backward(weights);
            }
            for (Tensor leaf : in.leaves) grads.add(leaf.grad() == null ? null : leaf.grad().toFloatArray());
            return new Outcome(out.shape(), out.dtype(), values, grads);
        }
    }

    protected static void assertClose(String what, float[] expected, float[] actual, Tolerance tol) {
        assertEquals(expected.length, actual.length, what + ": element count");
        for (int i = 0; i < expected.length; i++) {
            if (!tol.accepts(expected[i], actual[i])) {
                fail(what + ": element " + i + " is " + actual[i] + ", reference " + expected[i] + " (tolerance rel "
                        + tol.rel() + ", abs " + tol.abs() + "); first values " + preview(actual) + " vs " + preview(expected));
            }
        }
    }

    private static String preview(float[] a) {
        return Arrays.toString(Arrays.copyOf(a, Math.min(a.length, 6)));
    }

    // ---- inputs ---------------------------------------------------------------------------------

    /**
     * Draws the inputs of one run on the current backend. Float inputs are leaves that require
     * grad (their gradients are compared); views of them give non-contiguous operands.
     */
    public static final class Inputs {
        private final Generator gen;
        private final List<Tensor> leaves = new ArrayList<>();

        Inputs(Generator gen) { this.gen = gen; }

        /** The generator, for drawing plain numbers (shapes, indices) in the computation. */
        public Generator generator() { return gen; }

        /** A standard-normal leaf that requires grad. */
        public Tensor randn(int... shape) { return leaf(Tensor.randn(gen, shape)); }

        /** A uniform leaf in [lo, hi) that requires grad. */
        public Tensor uniform(double lo, double hi, int... shape) {
            return leaf(Tensor.rand(gen, shape).mul(hi - lo).add(lo).detach());
        }

        /** Values in [0.5, 2): safe for log, sqrt, reciprocal and pow bases. */
        public Tensor positive(int... shape) { return uniform(0.5, 2.0, shape); }

        /** A standard-normal tensor that takes no part in autograd. */
        public Tensor constant(int... shape) { return Tensor.randn(gen, shape); }

        /** int64 values uniform in [0, bound). */
        public Tensor indices(int bound, int... shape) {
            long[] v = new long[dev.symbiont.core.Layout.numel(shape)];
            for (int i = 0; i < v.length; i++) v[i] = gen.nextInt(bound);
            return Tensor.fromArray(v, shape);
        }

        /** A mask of 0 and 1 (float32), about half ones. */
        public Tensor mask(int... shape) { return Tensor.rand(gen, shape).gt(0.5); }

        /** A leaf of the transposed shape seen through transpose(-2, -1): non-contiguous, same values layout-wise. */
        public Tensor transposed(int... shape) {
            int[] s = shape.clone();
            int r = s.length;
            int tmp = s[r - 1]; s[r - 1] = s[r - 2]; s[r - 2] = tmp;
            return randn(s).transpose(-2, -1);
        }

        /** A leaf of the reversed shape seen through a reversing permute. */
        public Tensor permuted(int... shape) {
            int r = shape.length;
            int[] rev = new int[r], perm = new int[r];
            for (int i = 0; i < r; i++) { rev[i] = shape[r - 1 - i]; perm[i] = r - 1 - i; }
            return randn(rev).permute(perm);
        }

        /** Every other element of a leaf twice as long in the last dim, narrowed by one at the front. */
        public Tensor strided(int... shape) {
            int[] s = shape.clone();
            int last = s.length - 1;
            s[last] = 2 * shape[last] + 1;
            return randn(s).slice(last, 1, s[last], 2);
        }

        /** A leaf with a size-1 dim 0 broadcast to {@code shape[0]} (stride 0). */
        public Tensor expanded(int... shape) {
            int[] s = shape.clone();
            s[0] = 1;
            return randn(s).expand(shape);
        }

        /** A leaf in the given layout style, a name from {@link #LAYOUTS}. */
        public Tensor inLayout(String layout, int... shape) {
            return switch (layout) {
                case "contiguous" -> randn(shape);
                case "transposed" -> transposed(shape);
                case "permuted" -> permuted(shape);
                case "strided" -> strided(shape);
                case "expanded" -> expanded(shape);
                default -> throw new IllegalArgumentException("unknown layout " + layout);
            };
        }

        /** Registers an existing tensor as a leaf whose gradient is compared. */
        public Tensor leaf(Tensor t) {
            t.requiresGrad(true);
            leaves.add(t);
            return t;
        }
    }

    /** The layout styles {@link Inputs#inLayout} knows (all need rank >= 2). */
    protected static final List<String> LAYOUTS = List.of("contiguous", "transposed", "permuted", "strided", "expanded");
}
