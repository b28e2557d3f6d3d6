package dev.symbiont.core.fused.moe;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.core.fused.Families;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The moe family's reference ({@link ReferenceMoe}) against the per-token loop written out in
 * double — each token through each of its experts, weighted — its gradients against finite
 * differences, capacity's drops, and its errors.
 */
class MoeTest {
    private final Generator gen = new Generator(5);

    /** out[t] = Σ_i w[t,i] · x[t]·W[e(t,i)], skipping the slots beyond an expert's capacity in slot order. */
    private static float[] perTokenLoop(float[] x, long[] ids, float[] routing, float[] w, int tokens, int k,
                                        int experts, int in, int out, int capacity) {
        float[] result = new float[tokens * out];
        int[] taken = new int[experts];
        for (int t = 0; t < tokens; t++) {
            for (int i = 0; i < k; i++) {
                int e = (int) ids[t * k + i];
                if (taken[e]++ >= capacity) continue; // dropped: the token keeps only its residual
                for (int o = 0; o < out; o++) {
                    double acc = 0;
                    for (int p = 0; p < in; p++) acc += (double) x[t * in + p] * w[(e * in + p) * out + o];
                    result[t * out + o] += (float) (routing[t * k + i] * acc);
                }
            }
        }
        return result;
    }

    private static Tensor layer(Tensor x, Tensor ids, Tensor routing, Tensor w, int capacity) {
        MoeKernels.Permuted p = Moe.permute(x, ids, w.size(0), capacity);
        return Moe.combine(Moe.groupedMatmul(p.rows(), w, p.groupSizes()), routing, p.permutation());
    }

    @Test
    void referenceEqualsThePerTokenLoopDroplessAndWithCapacity() {
        int tokens = 11, k = 2, experts = 4, in = 5, out = 3;
        Tensor x = Tensor.randn(gen, tokens, in), w = Tensor.randn(gen, experts, in, out);
        Tensor routing = Tensor.rand(gen, tokens, k);
        Tensor ids = Tensor.randn(gen, tokens, experts).topk(k, 1, true).indices();
        for (int capacity : new int[] {MoeKernels.DROPLESS, 6, 3, 1}) {
            float[] expected = perTokenLoop(x.toFloatArray(), ids.toLongArray(), routing.toFloatArray(), w.toFloatArray(),
                    tokens, k, experts, in, out, capacity);
            float[] actual = layer(x, ids, routing, w, capacity).toFloatArray();
            for (int j = 0; j < expected.length; j++) {
                assertEquals(expected[j], actual[j], 1e-4, "capacity " + capacity + ", element " + j);
            }
        }
    }

    @Test
    void permuteSortsStablyByExpertAndCapacityDropsTheLatestSlots() {
        // Slots 0..7 of 4 tokens × 2 choices go to experts 1,0 | 1,2 | 0,1 | 1,0.
        Tensor ids = Tensor.fromArray(new long[] {1, 0, 1, 2, 0, 1, 1, 0}, 4, 2);
        Tensor x = Tensor.arange(0, 4, 1, DType.FLOAT32).unsqueeze(1);
        MoeKernels.Permuted all = Moe.permute(x, ids, 3, MoeKernels.DROPLESS);
        assertArrayEquals(new long[] {1, 4, 7, 0, 2, 5, 6, 3}, all.permutation().toLongArray());
        assertArrayEquals(new long[] {3, 4, 1}, all.groupSizes().toLongArray());
        assertArrayEquals(new long[] {0, 3, 7}, all.offsets().toLongArray());
        assertArrayEquals(new float[] {0, 2, 3, 0, 1, 2, 3, 1}, all.rows().toFloatArray());
        // Capacity 2: expert 0 keeps slots 1, 4 (drops 7); expert 1 keeps 0, 2 (drops 5, 6).
        MoeKernels.Permuted cut = Moe.permute(x, ids, 3, 2);
        assertArrayEquals(new long[] {1, 4, 0, 2, 3}, cut.permutation().toLongArray());
        assertArrayEquals(new long[] {2, 2, 1}, cut.groupSizes().toLongArray());
        assertArrayEquals(new long[] {0, 2, 4}, cut.offsets().toLongArray());
    }

    @Test
    void gradientsOfTokensExpertWeightsAndRoutingWeightsMatchFiniteDifferences() {
        Tensor ids = Tensor.fromArray(new long[] {0, 2, 1, 2, 2, 0, 1, 0, 2, 1}, 5, 2);
        for (int capacity : new int[] {MoeKernels.DROPLESS, 3}) {
            GradCheck.check("moe layer, capacity " + capacity, in -> layer(in.get(0), ids, in.get(1), in.get(2), capacity),
                    GradCheck.randn(gen, 1, 5, 3), GradCheck.uniform(gen, 0.2, 1, 5, 2), GradCheck.randn(gen, 1, 3, 3, 4));
        }
    }

    @Test
    void gradientsOfPerExpertWeightsMatchFiniteDifferences() {
        // Expert 1 takes no token; expert 0's weight is a transposed (out, in) leaf, expert 2's a plain one.
        Tensor ids = Tensor.fromArray(new long[] {0, 2, 2, 0, 2, 0, 0, 2, 2, 0}, 5, 2);
        GradCheck.check("moe layer, per-expert weights", in -> {
            MoeKernels.Permuted p = Moe.permute(in.get(0), ids, 3, MoeKernels.DROPLESS);
            Tensor y = Moe.groupedMatmul(p.rows(), java.util.List.of(in.get(2).t(), in.get(3), in.get(4).t()), p.groupSizes());
            return Moe.combine(y, in.get(1), p.permutation());
        }, GradCheck.randn(gen, 1, 5, 3), GradCheck.uniform(gen, 0.2, 1, 5, 2), GradCheck.randn(gen, 1, 4, 3),
                GradCheck.randn(gen, 1, 3, 4), GradCheck.randn(gen, 1, 4, 3));
    }

    @Test
    void swigluIsSiluTimesUpAndItsGradientsMatchFiniteDifferences() {
        Tensor a = Tensor.randn(gen, 3, 5), b = Tensor.randn(gen, 3, 5);
        float[] expected = a.silu().mul(b).toFloatArray(), actual = Moe.swiglu(a, b).toFloatArray();
        assertArrayEquals(expected, actual, 1e-6f);
        GradCheck.check("swiglu", in -> Moe.swiglu(in.get(0), in.get(1)), GradCheck.randn(gen, 2, 3, 5),
                GradCheck.randn(gen, 1, 3, 5));
    }

    @Test
    void theMoeFamilyIsListedAndRunsTheReferenceOnABackendWithoutKernels() {
        assertTrue(Families.all().contains(MoeKernels.FAMILY));
        assertEquals(MoeKernels.FAMILY, Families.named("moe"));
    }

    // ---- bad input -------------------------------------------------------------------------------

    private static void throwsMentioning(Class<? extends Throwable> type, Executable body, String... fragments) {
        Throwable e = assertThrows(type, body);
        String msg = e.getMessage().toLowerCase(Locale.ROOT);
        for (String f : fragments) assertTrue(msg.contains(f.toLowerCase(Locale.ROOT)), "'" + e.getMessage() + "' does not mention '" + f + "'");
    }

    @Test
    void expertIdsOutOfRangeOrOfTheWrongDtypeNameTheOpAndTheId() {
        Tensor x = Tensor.randn(gen, 3, 4);
        throwsMentioning(IndexOutOfBoundsException.class,
                () -> Moe.permute(x, Tensor.fromArray(new long[] {0, 1, 9}, 3, 1), 4, MoeKernels.DROPLESS), "moe_permute", "9");
        throwsMentioning(IndexOutOfBoundsException.class,
                () -> Moe.permute(x, Tensor.fromArray(new int[] {-1, 1, 2}, 3, 1), 4, MoeKernels.DROPLESS), "moe_permute", "-1");
        throwsMentioning(IllegalArgumentException.class,
                () -> Moe.permute(x, Tensor.zeros(3, 1), 4, MoeKernels.DROPLESS), "moe_permute", "expertIds", "float32");
        throwsMentioning(IllegalArgumentException.class,
                () -> Moe.permute(x, Tensor.fromArray(new long[] {0, 1}, 2, 1), 4, MoeKernels.DROPLESS), "moe_permute", "[2, 1]", "[3, 4]");
    }

    @Test
    void topKOutOfRangeAndBadCapacityAreRejected() {
        Tensor x = Tensor.randn(gen, 2, 4);
        throwsMentioning(IllegalArgumentException.class,
                () -> Moe.permute(x, Tensor.fromArray(new long[] {0, 1, 2, 0, 1, 2}, 2, 3), 2, MoeKernels.DROPLESS), "top-k", "3", "2 experts");
        throwsMentioning(IllegalArgumentException.class,
                () -> Moe.permute(x, Tensor.fromArray(new long[0], 2, 0), 2, MoeKernels.DROPLESS), "top-k", "0");
        throwsMentioning(IllegalArgumentException.class,
                () -> Moe.permute(x, Tensor.fromArray(new long[] {0, 1}, 2, 1), 2, 0), "moe_permute", "capacity");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.capacity(0, 2, 10, 4), "capacity factor", "0");
        assertEquals(7, Moe.capacity(1.25, 2, 10, 4)); // ceil(1.25 · 2 · 10 / 4) = ceil(6.25)
    }

    @Test
    void inconsistentExpertWeightsAndGroupSizesAreRejected() {
        Tensor x = Tensor.randn(gen, 5, 4);
        Tensor sizes = Tensor.fromArray(new long[] {2, 3});
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedMatmul(x, Tensor.randn(gen, 2, 3, 6), sizes),
                "grouped_matmul", "[5, 4]", "[2, 3, 6]");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedMatmul(x, Tensor.randn(gen, 3, 4, 6), sizes),
                "grouped_matmul", "2 group sizes", "3 experts");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedMatmul(x, Tensor.randn(gen, 4, 6), sizes),
                "grouped_matmul", "weights", "3-d");
        throwsMentioning(IllegalArgumentException.class,
                () -> Moe.groupedMatmul(x, Tensor.randn(gen, 2, 4, 6), Tensor.fromArray(new long[] {2, 2})), "grouped_matmul", "sum to 4", "5 rows");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedMatmul(x,
                java.util.List.of(Tensor.randn(gen, 4, 6), Tensor.randn(gen, 4, 5)), sizes), "grouped_matmul", "inconsistent", "[4, 5]");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedMatmul(x, java.util.List.of(), sizes),
                "grouped_matmul", "no expert weights");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.combine(Tensor.randn(gen, 7, 3), Tensor.rand(gen, 3, 2),
                Tensor.fromArray(new long[] {0, 1, 2, 3, 4, 5, 0})), "moe_combine", "[7, 3]", "[3, 2]");
        throwsMentioning(IndexOutOfBoundsException.class, () -> Moe.combine(Tensor.randn(gen, 2, 3), Tensor.rand(gen, 2, 1),
                Tensor.fromArray(new long[] {0, 5})), "moe_combine", "5");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.swiglu(Tensor.randn(gen, 2, 3), Tensor.randn(gen, 3, 2)),
                "moe_swiglu", "[2, 3]", "[3, 2]");
    }

    @Test
    void groupSizesAreCheckedOnTheBackendAndTheErrorNamesTheSizes() {
        Tensor x = Tensor.randn(gen, 5, 4), w = Tensor.randn(gen, 2, 4, 6);
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedMatmul(x, w, Tensor.fromArray(new long[] {-1, 6})),
                "grouped_matmul", "negative", "[-1, 6]");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedMatmul(x, w, Tensor.fromArray(new int[] {3, 3})),
                "grouped_matmul", "[3, 3]", "sum to 6", "5 rows");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedSwiglu(x, java.util.List.of(w.select(0, 0), w.select(0, 1)),
                java.util.List.of(w.select(0, 1), w.select(0, 0)), Tensor.fromArray(new long[] {6, 0})), "grouped_matmul", "[6, 0]");
    }

    @Test
    void noRowsAtAllGiveNoRowsAndZeroWeightGradients() {
        Tensor x = Tensor.zeros(0, 4).requiresGrad(true), w = Tensor.randn(gen, 2, 4, 3).requiresGrad(true);
        Tensor y = Moe.groupedMatmul(x, w, Tensor.fromArray(new long[] {0, 0}));
        assertArrayEquals(new int[] {0, 3}, y.shape());
        y.sum().backward();
        assertArrayEquals(new float[24], w.grad().toFloatArray());
        assertArrayEquals(new int[] {0, 4}, x.grad().shape());
    }

    /** A backend that, as a device does, raises a failed index check later: it keeps the error and goes on. */
    static final class DeferredIndexChecks extends ReferenceBackend {
        final List<IndexOutOfBoundsException> pending = new ArrayList<>();

        @Override
        public IndexCheck checkIndex(String op, Storage ids, Layout idsLayout, long bound, OptionalLong ignore) {
            try {
                return super.checkIndex(op, ids, idsLayout, bound, ignore);
            } catch (IndexOutOfBoundsException e) {
                pending.add(e);
                return new IndexCheck(allocate(DType.INT64, idsLayout.numel()), allocate(DType.FLOAT32, idsLayout.numel()));
            }
        }
    }

    @Test
    void onABackendThatRaisesChecksLaterBadGroupSizesStillRaiseNamingGroupedMatmul() {
        DeferredIndexChecks device = new DeferredIndexChecks();
        try (var on = Backends.use(device)) {
            Tensor x = Tensor.randn(gen, 5, 4), w = Tensor.randn(gen, 2, 4, 6);
            Moe.groupedMatmul(x, w, Tensor.fromArray(new long[] {-1, 6}));
            assertEquals(1, device.pending.size(), "a negative size: one failed check");
            String negative = device.pending.get(0).getMessage();
            assertTrue(negative.contains("grouped_matmul") && negative.contains("-1"), negative);
            Moe.groupedMatmul(x, w, Tensor.fromArray(new long[] {3, 3}));
            assertEquals(2, device.pending.size(), "sizes summing to 6, not 5: one more failed check");
            String sum = device.pending.get(1).getMessage();
            assertTrue(sum.contains("grouped_matmul") && sum.contains("sum") && sum.contains("5 rows"), sum);
            Moe.groupedMatmul(x, w, Tensor.fromArray(new long[] {2, 3}));
            assertEquals(2, device.pending.size(), "good sizes fail no check");
        }
    }

    @Test
    void groupedSwigluRejectsGateAndUpWeightsThatDisagree() {
        Tensor x = Tensor.randn(gen, 5, 4);
        Tensor sizes = Tensor.fromArray(new long[] {2, 3});
        java.util.List<Tensor> two = java.util.List.of(Tensor.randn(gen, 4, 6), Tensor.randn(gen, 4, 6));
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedSwiglu(x, two,
                java.util.List.of(Tensor.randn(gen, 4, 7), Tensor.randn(gen, 4, 7)), sizes), "grouped_swiglu", "[4, 6]", "[4, 7]");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedSwiglu(x, two,
                java.util.List.of(Tensor.randn(gen, 4, 6)), sizes), "grouped_swiglu", "2 gate", "1 up");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedSwiglu(x, two,
                java.util.List.of(Tensor.randn(gen, 4, 6), Tensor.randn(gen, 4, 5)), sizes), "grouped_swiglu", "inconsistent", "up[1]");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedSwiglu(Tensor.randn(gen, 5, 3), two, two, sizes),
                "grouped_matmul", "3 columns", "take 4");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.groupedSwiglu(x, java.util.List.of(), two, sizes),
                "grouped_swiglu", "no gate weights");
    }

    @Test
    void routeRejectsBadShapesDtypesAndTopKNamingTheOp() {
        Tensor x = Tensor.randn(gen, 5, 4);
        throwsMentioning(IllegalArgumentException.class, () -> Moe.route(x, Tensor.randn(gen, 8, 3), 2, true),
                "moe_route", "[8, 3]", "[5, 4]");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.route(x, Tensor.randn(gen, 8, 4), 9, true),
                "moe_route", "top-k", "9");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.route(x, Tensor.randn(gen, 8, 4), 0, true),
                "moe_route", "top-k", "0");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.route(x.to(dev.symbiont.core.DType.BFLOAT16),
                Tensor.randn(gen, 8, 4), 2, true), "moe_route");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.route(Tensor.randn(gen, 5, 4, 1), Tensor.randn(gen, 8, 4), 2, true),
                "moe_route", "x");
        throwsMentioning(IllegalArgumentException.class, () -> Moe.route(x, Tensor.zeros(0, 4), 1, true),
                "moe_route", "[0, 4]", "no experts");
    }

    /** The reference router's gradients (softmax, top-k, renormalisation, logsumexp) against finite differences. */
    @Test
    void referenceRouteGradientsMatchFiniteDifferences() {
        for (boolean renormalize : new boolean[] {true, false}) {
            GradCheck.check("route, renormalize " + renormalize, in -> {
                MoeKernels.Routed r = Moe.route(in.get(0), in.get(1), 2, renormalize);
                return r.weights().sum(1, false).add(r.probs().narrow(1, 0, 1).reshape(5)).add(r.logsumexp().square())
                        .add(r.logits().narrow(1, 2, 1).reshape(5));
            }, GradCheck.randn(gen, 1, 5, 4), GradCheck.randn(gen, 0.5, 3, 4));
        }
    }

    /** Each token's weights sum to 1 when renormalised, are its top probabilities otherwise, and come largest first. */
    @Test
    void routeWeightsAreTheLargestProbabilitiesInOrder() {
        MoeKernels.Routed r = Moe.route(Tensor.randn(gen, 7, 6), Tensor.randn(gen, 5, 6), 3, false);
        MoeKernels.Routed n = Moe.route(Tensor.randn(new dev.symbiont.core.Generator(1), 7, 6),
                Tensor.randn(new dev.symbiont.core.Generator(2), 5, 6), 3, true);
        float[] p = r.probs().toFloatArray(), w = r.weights().toFloatArray(), nw = n.weights().toFloatArray();
        long[] ids = r.expertIds().toLongArray();
        for (int t = 0; t < 7; t++) {
            float[] sorted = java.util.Arrays.copyOfRange(p, t * 5, t * 5 + 5);
            java.util.Arrays.sort(sorted);
            for (int i = 0; i < 3; i++) {
                org.junit.jupiter.api.Assertions.assertEquals(sorted[4 - i], w[t * 3 + i], 0, "token " + t + " choice " + i);
                org.junit.jupiter.api.Assertions.assertEquals(p[t * 5 + (int) ids[t * 3 + i]], w[t * 3 + i], 0);
            }
            org.junit.jupiter.api.Assertions.assertEquals(1, nw[t * 3] + nw[t * 3 + 1] + nw[t * 3 + 2], 1e-6);
        }
    }
}
