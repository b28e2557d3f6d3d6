package dev.symbiont.core.fused.attention;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reference scaled-dot-product attention ({@link MaterializedAttention}) against an
 * independent scalar loop in double, its gradients against finite differences, and its errors.
 */
class AttentionTest {
    private static final double NEG_INF = Double.NEGATIVE_INFINITY;
    private final Generator gen = new Generator(11);

    // ---- an independent scalar twin ------------------------------------------------------------

    /** Row-major values with a shape; a mask's shape may have fewer dims or 1s (broadcast). */
    private record Host(float[] values, int[] shape) {
        static Host of(Tensor t) { return new Host(t.toFloatArray(), t.shape()); }

        /** Element (b, h, i, j) of this tensor broadcast to 4-D. */
        double at(int b, int h, int i, int j) {
            int[] idx = {b, h, i, j};
            int lead = 4 - shape.length, flat = 0;
            for (int dim = 0; dim < shape.length; dim++) flat = flat * shape[dim] + (shape[dim] == 1 ? 0 : idx[lead + dim]);
            return values[flat];
        }
    }

    /** softmax(q·kᵀ·scale + mask, causal bottom-right) · v in double; an empty row gives zeros. */
    private static float[] scalarAttention(Host q, Host k, Host v, Host mask, boolean causal, double scale) {
        int batch = q.shape[0], heads = q.shape[1], sq = q.shape[2], d = q.shape[3], kvHeads = k.shape[1], sk = k.shape[2];
        int group = heads / kvHeads;
        float[] out = new float[batch * heads * sq * d];
        for (int b = 0; b < batch; b++) for (int h = 0; h < heads; h++) for (int i = 0; i < sq; i++) {
            int kh = h / group;
            double[] s = new double[sk];
            double max = NEG_INF;
            for (int j = 0; j < sk; j++) {
                double dot = 0;
                for (int t = 0; t < d; t++) dot += q.at(b, h, i, t) * k.at(b, kh, j, t);
                s[j] = dot * scale + (mask == null ? 0 : mask.at(b, h, i, j));
                if (causal && j > i + (sk - sq)) s[j] = NEG_INF;
                max = Math.max(max, s[j]);
            }
            if (max == NEG_INF) continue; // every key masked: zeros
            double sum = 0;
            for (int j = 0; j < sk; j++) sum += s[j] = Math.exp(s[j] - max);
            for (int t = 0; t < d; t++) {
                double acc = 0;
                for (int j = 0; j < sk; j++) acc += s[j] / sum * v.at(b, kh, j, t);
                out[((b * heads + h) * sq + i) * d + t] = (float) acc;
            }
        }
        return out;
    }

    private void assertMatchesScalar(String what, Tensor q, Tensor k, Tensor v, Tensor mask, boolean causal) {
        double scale = 1 / Math.sqrt(q.size(3));
        Tensor out = Attention.scaledDotProductAttention(q, k, v, mask, causal);
        assertArrayEquals(q.shape(), out.shape(), what + ": shape");
        float[] expected = scalarAttention(Host.of(q), Host.of(k), Host.of(v), mask == null ? null : Host.of(mask), causal, scale);
        assertClose(what, expected, out.toFloatArray(), 1e-5);
    }

    private static void assertClose(String what, float[] expected, float[] actual, double tol) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (!(Math.abs(expected[i] - actual[i]) <= tol * (1 + Math.abs(expected[i])))) {
                throw new AssertionError(what + ": element " + i + " is " + actual[i] + ", expected " + expected[i]);
            }
        }
    }

    private Tensor randn(int... shape) { return Tensor.randn(gen, shape); }

    /** A mask of 0 and −∞ (about a quarter dropped) with the given shape. */
    private Tensor dropMask(int... shape) {
        return Tensor.where(Tensor.rand(gen, shape).lt(0.25), Tensor.scalar(Float.NEGATIVE_INFINITY), Tensor.scalar(0));
    }

    // ---- forward against the scalar loop -------------------------------------------------------

    @Test
    void multiHeadAttentionMatchesTheScalarLoop() {
        assertMatchesScalar("plain", randn(2, 3, 5, 8), randn(2, 3, 7, 8), randn(2, 3, 7, 8), null, false);
        assertMatchesScalar("one key", randn(1, 2, 4, 3), randn(1, 2, 1, 3), randn(1, 2, 1, 3), null, false);
    }

    @Test
    void groupedQueryAttentionReadsKvHeadHOverGroup() {
        assertMatchesScalar("gqa 6/2", randn(2, 6, 5, 4), randn(2, 2, 9, 4), randn(2, 2, 9, 4), null, false);
        assertMatchesScalar("mqa 4/1", randn(1, 4, 3, 4), randn(1, 1, 6, 4), randn(1, 1, 6, 4), null, true);
    }

    @Test
    void causalMaskIsBottomRightAlignedWhenQueriesAndKeysDiffer() {
        assertMatchesScalar("causal square", randn(1, 2, 6, 4), randn(1, 2, 6, 4), randn(1, 2, 6, 4), null, true);
        assertMatchesScalar("causal sq<sk", randn(2, 2, 3, 4), randn(2, 2, 8, 4), randn(2, 2, 8, 4), null, true);
        assertMatchesScalar("causal sq>sk", randn(1, 2, 7, 4), randn(1, 2, 4, 4), randn(1, 2, 4, 4), null, true);
    }

    @Test
    void aDecodeStepWithOneQuerySeesEveryCachedKey() {
        Tensor q = randn(1, 2, 1, 4), k = randn(1, 2, 9, 4), v = randn(1, 2, 9, 4);
        assertArrayEquals(Attention.scaledDotProductAttention(q, k, v, null, false).toFloatArray(),
                Attention.scaledDotProductAttention(q, k, v, null, true).toFloatArray());
    }

    @Test
    void additiveAndKeyPaddingMasksBroadcastOverBatchHeadsAndQueries() {
        assertMatchesScalar("full mask", randn(2, 2, 4, 4), randn(2, 2, 5, 4), randn(2, 2, 5, 4), randn(2, 2, 4, 5), false);
        assertMatchesScalar("key padding", randn(2, 2, 4, 4), randn(2, 2, 5, 4), randn(2, 2, 5, 4), dropMask(2, 1, 1, 5), false);
        assertMatchesScalar("2-D bias + causal", randn(1, 4, 5, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 4), randn(5, 5), true);
        assertMatchesScalar("head mask", randn(2, 3, 4, 4), randn(2, 3, 6, 4), randn(2, 3, 6, 4), dropMask(1, 3, 4, 6), true);
    }

    @Test
    void aRowWithEveryKeyMaskedOutputsZerosAndGetsZeroGradient() {
        float[] m = new float[2 * 3];
        for (int j = 0; j < 3; j++) m[3 + j] = Float.NEGATIVE_INFINITY; // batch 1: every key padded
        Tensor mask = Tensor.fromArray(m, 2, 1, 1, 3);
        Tensor q = randn(2, 2, 4, 4).requiresGrad(true), k = randn(2, 2, 3, 4).requiresGrad(true), v = randn(2, 2, 3, 4).requiresGrad(true);
        Tensor out = Attention.scaledDotProductAttention(q, k, v, mask, false);
        float[] o = out.toFloatArray();
        for (int i = o.length / 2; i < o.length; i++) assertEquals(0f, o[i], "padded batch output " + i);
        out.backward(Tensor.onesLike(out));
        for (Tensor t : List.of(q, k, v)) {
            float[] g = t.grad().toFloatArray();
            for (float x : g) assertFalse(Float.isNaN(x), "no NaN gradient");
            for (int i = g.length / 2; i < g.length; i++) assertEquals(0f, g[i], "padded batch gradient " + i);
        }
        // causal with sq > sk: the first sq − sk queries see no key
        Tensor causal = Attention.scaledDotProductAttention(randn(1, 1, 5, 2), randn(1, 1, 2, 2), randn(1, 1, 2, 2), null, true);
        float[] c = causal.toFloatArray();
        for (int i = 0; i < 3 * 2; i++) assertEquals(0f, c[i]);
        assertTrue(c[6] != 0f);
    }

    @Test
    void logsumexpIsTheLogOfEachRowsSoftmaxDenominatorAndMinusInfinityForAnEmptyRow() {
        Tensor q = randn(1, 1, 3, 2), k = randn(1, 1, 3, 2), v = randn(1, 1, 3, 2);
        Tensor mask = Tensor.fromArray(new float[] {0, 0, 0, 0, 0, 0, (float) NEG_INF, (float) NEG_INF, (float) NEG_INF}, 3, 3);
        AttentionKernels.AttentionResult r = new MaterializedAttention().attention(q, k, v, mask.expand(1, 1, 3, 3), false, 0.5);
        float[] lse = r.logsumexp().toFloatArray();
        assertArrayEquals(new int[] {1, 1, 3}, r.logsumexp().shape());
        float[] s = q.matmul(k.transpose(2, 3)).mul(0.5).toFloatArray();
        for (int i = 0; i < 2; i++) {
            double sum = 0;
            for (int j = 0; j < 3; j++) sum += Math.exp(s[i * 3 + j]);
            assertEquals(Math.log(sum), lse[i], 1e-5);
        }
        assertEquals(Float.NEGATIVE_INFINITY, lse[2]);
    }

    @Test
    void nonContiguousInputsFromATransposedProjectionWork() {
        // (batch, seq, heads, d) projections seen as (batch, heads, seq, d)
        Tensor q = randn(2, 5, 4, 8).transpose(1, 2), k = randn(2, 7, 2, 8).transpose(1, 2), v = randn(2, 2, 8, 7).transpose(2, 3);
        assertFalse(q.isContiguous());
        assertMatchesScalar("transposed", q, k, v, dropMask(2, 1, 1, 7), true);
    }

    @Test
    void explicitScaleMultipliesTheScores() {
        Tensor q = randn(1, 2, 3, 4), k = randn(1, 2, 5, 4), v = randn(1, 2, 5, 4);
        float[] expected = scalarAttention(Host.of(q), Host.of(k), Host.of(v), null, false, 0.3);
        assertClose("scale 0.3", expected, Tensor.scaledDotProductAttention(q, k, v, null, false, 0.3).toFloatArray(), 1e-5);
        assertArrayEquals(Attention.scaledDotProductAttention(q, k, v, null, false, 0.5).toFloatArray(),
                Tensor.scaledDotProductAttention(q, k, v, null, false).toFloatArray());
    }

    @Test
    void emptyKeysGiveZerosAndEmptyQueriesAnEmptyResult() {
        Tensor out = Attention.scaledDotProductAttention(randn(1, 2, 3, 4), Tensor.zeros(1, 2, 0, 4), Tensor.zeros(1, 2, 0, 4), null, false);
        assertArrayEquals(new float[24], out.toFloatArray());
        assertArrayEquals(new int[] {1, 2, 0, 4},
                Attention.scaledDotProductAttention(Tensor.zeros(1, 2, 0, 4), randn(1, 2, 3, 4), randn(1, 2, 3, 4), null, true).shape());
    }

    // ---- gradients -----------------------------------------------------------------------------

    @Test
    void gradientsOfQKAndVMatchFiniteDifferences() {
        GradCheck.check("sdpa", in -> Attention.scaledDotProductAttention(in.get(0), in.get(1), in.get(2), null, false),
                GradCheck.randn(gen, 1, 1, 2, 3, 4), GradCheck.randn(gen, 1, 1, 2, 5, 4), GradCheck.randn(gen, 1, 1, 2, 5, 4));
    }

    @Test
    void gradientsWithGroupedQueriesCausalityAndAMaskMatchFiniteDifferences() {
        Tensor mask = randn(1, 1, 4, 3);
        GradCheck.check("sdpa gqa causal mask", in -> Attention.scaledDotProductAttention(in.get(0), in.get(1), in.get(2), mask, true, 0.7),
                GradCheck.randn(gen, 1, 1, 4, 4, 3), GradCheck.randn(gen, 1, 1, 2, 3, 3), GradCheck.randn(gen, 1, 1, 2, 3, 3));
    }

    @Test
    void gradientsThroughTransposedInputsMatchFiniteDifferences() {
        GradCheck.check("sdpa transposed", in -> Attention.scaledDotProductAttention(in.get(0).transpose(1, 2),
                        in.get(1).transpose(1, 2), in.get(2).transpose(1, 2), null, true),
                GradCheck.randn(gen, 1, 2, 3, 2, 4), GradCheck.randn(gen, 1, 2, 3, 2, 4), GradCheck.randn(gen, 1, 2, 3, 2, 4));
    }

    @Test
    void theRecordedGradFnIsNamedAndTheMaskGetsNoGradient() {
        Tensor q = randn(1, 1, 2, 2).requiresGrad(true), mask = randn(1, 1, 2, 2).requiresGrad(true);
        Tensor out = Attention.scaledDotProductAttention(q, randn(1, 1, 2, 2), randn(1, 1, 2, 2), mask, false);
        assertEquals("scaled_dot_product_attention", out.gradFn().name());
        out.sum().backward();
        assertTrue(q.grad() != null);
        assertEquals(null, mask.grad());
    }

    @Test
    void theProfilerCountsFourBatchHeadsHeadDimFlopsPerAttendedPairAndTwoAndAHalfTimesThatBackward() {
        Tensor q = randn(2, 3, 5, 8).requiresGrad(true), k = randn(2, 3, 7, 8), v = randn(2, 3, 7, 8);
        try (ProfilerSession p = Profiler.start()) {
            Attention.scaledDotProductAttention(q, k, v, null, false).sum().backward();
            var row = p.report().op("scaled_dot_product_attention").orElseThrow();
            assertEquals(OpCategory.ATTENTION, row.category());
            assertEquals(4L * 2 * 3 * 5 * 7 * 8, row.flops());
            var backward = p.report().op("scaled_dot_product_attention.backward").orElseThrow();
            assertEquals(4L * 2 * 3 * 5 * 7 * 8 * 5 / 2, backward.flops());
        }
        // causal, bottom-right aligned: query i of 5 sees keys j ≤ i + 2 of 7, 3 + 4 + 5 + 6 + 7 = 25 pairs
        try (ProfilerSession p = Profiler.start()) {
            Attention.scaledDotProductAttention(q, k, v, null, true);
            assertEquals(4L * 2 * 3 * 25 * 8, p.report().op("scaled_dot_product_attention").orElseThrow().flops());
        }
    }

    // ---- bad input -----------------------------------------------------------------------------

    private static void assertRejects(String fragment, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().startsWith("scaled_dot_product_attention"), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), "'" + fragment + "' not in: " + e.getMessage());
    }

    @Test
    void badShapesDtypesAndBackendsAreRejectedNamingTheOpAndShapes() {
        Tensor q = randn(1, 4, 3, 8), k = randn(1, 2, 5, 8), v = randn(1, 2, 5, 8);
        assertRejects("must be 4-D", () -> Attention.scaledDotProductAttention(randn(4, 3, 8), k, v, null, false));
        assertRejects("[4, 3, 8]", () -> Attention.scaledDotProductAttention(randn(4, 3, 8), k, v, null, false));
        assertRejects("batch sizes differ", () -> Attention.scaledDotProductAttention(randn(2, 4, 3, 8), k, v, null, false));
        assertRejects("head_dim differs", () -> Attention.scaledDotProductAttention(randn(1, 4, 3, 6), k, v, null, false));
        assertRejects("multiple of kv heads", () -> Attention.scaledDotProductAttention(randn(1, 3, 3, 8), k, v, null, false));
        assertRejects("k and v shapes differ", () -> Attention.scaledDotProductAttention(q, k, randn(1, 2, 6, 8), null, false));
        assertRejects("does not broadcast", () -> Attention.scaledDotProductAttention(q, k, v, randn(1, 1, 3, 4), false));
        assertRejects("does not broadcast", () -> Attention.scaledDotProductAttention(q, k, v, randn(1, 1, 1, 1, 5), false));
        assertRejects("expected float32", () -> Attention.scaledDotProductAttention(q, k, v, Tensor.zeros(5).to(DType.INT32), false));
        assertRejects("must all be float32, all bfloat16 or all float16, got bfloat16, float32, float32",
                () -> Attention.scaledDotProductAttention(q.to(DType.BFLOAT16), k, v, null, false));
        assertRejects("got int32", () -> Attention.scaledDotProductAttention(q.to(DType.INT32), k.to(DType.INT32),
                v.to(DType.INT32), null, false));
        Tensor elsewhere = randn(1, 2, 5, 8).to(new ReferenceBackend());
        assertRejects("different backends", () -> Attention.scaledDotProductAttention(q, k, elsewhere, null, false));
    }
}
