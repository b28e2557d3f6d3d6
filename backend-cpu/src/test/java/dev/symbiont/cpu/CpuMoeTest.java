package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.cpu.fused.CpuMoe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The CPU moe kernels ({@link CpuMoe}) against the family's reference on the same backend, for a
 * SwiGLU expert layer — w2(silu(w1·x) ⊙ w3·x), weighted and combined — forward and the gradients
 * of the tokens, the three expert weights and the routing weights, within 1e-4.
 */
class CpuMoeTest {
    private static final CpuBackend CPU = new CpuBackend();

    /** How the slots are routed in a case. */
    enum Routing { RANDOM, ONE_EXPERT, FIRST_TWO }

    /** Forward output, then each input's gradient. */
    private static List<float[]> run(boolean reference, Routing routing, int experts, int k, int tokens, int d, int hidden,
                                     int capacity) {
        try (var scope = Backends.use(CPU); var forced = reference ? FusedKernels.forceReference(MoeKernels.FAMILY) : null) {
            Generator gen = new Generator(17);
            Tensor x = Tensor.randn(gen, tokens, d).requiresGrad(true);
            Tensor w1 = Tensor.randn(gen, experts, hidden, d).mul(0.3).detach().requiresGrad(true);
            Tensor w3 = Tensor.randn(gen, experts, hidden, d).mul(0.3).detach().requiresGrad(true);
            Tensor w2 = Tensor.randn(gen, experts, d, hidden).mul(0.3).detach().requiresGrad(true);
            Tensor logits = Tensor.randn(gen, tokens, experts);
            Tensor ids = switch (routing) {
                case RANDOM -> logits.topk(k, 1, true).indices();
                case ONE_EXPERT -> Tensor.full(experts - 1, dev.symbiont.core.DType.INT64, tokens, k);
                case FIRST_TWO -> logits.narrow(1, 0, Math.min(2, experts)).topk(k, 1, true).indices();
            };
            Tensor gate = Tensor.rand(gen, tokens, k).requiresGrad(true);
            MoeKernels.Permuted p = Moe.permute(x, ids, experts, capacity);
            // Linear weights (E, out, in) seen as (E, in, out): the transposes arrive as strides.
            Tensor a = Moe.groupedMatmul(p.rows(), w1.transpose(1, 2), p.groupSizes()).silu()
                    .mul(Moe.groupedMatmul(p.rows(), w3.transpose(1, 2), p.groupSizes()));
            Tensor y = Moe.combine(Moe.groupedMatmul(a, w2.transpose(1, 2), p.groupSizes()), gate, p.permutation());
            y.backward(Tensor.randn(new Generator(3), y.shape()));
            List<float[]> out = new ArrayList<>();
            out.add(y.toFloatArray());
            for (Tensor t : new Tensor[] {x, w1, w3, w2, gate}) out.add(t.grad().toFloatArray());
            return out;
        }
    }

    private static void assertMatches(String what, Routing routing, int experts, int k, int tokens, int d, int hidden, int capacity) {
        List<float[]> expected = run(true, routing, experts, k, tokens, d, hidden, capacity);
        List<float[]> actual = run(false, routing, experts, k, tokens, d, hidden, capacity);
        String[] names = {"output", "dx", "dw1", "dw3", "dw2", "dgate"};
        for (int i = 0; i < names.length; i++) {
            float[] e = expected.get(i), a = actual.get(i);
            assertTrue(e.length == a.length, what + " " + names[i] + ": lengths differ");
            for (int j = 0; j < e.length; j++) {
                if (Math.abs(e[j] - a[j]) > 1e-4 * Math.max(1, Math.abs(e[j]))) {
                    fail(what + " " + names[i] + "[" + j + "]: cpu " + a[j] + ", reference " + e[j]);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}: E {1}, k {2}, T {3}, capacity {4}")
    @CsvSource({
            "RANDOM, 1, 1, 13, 0",
            "RANDOM, 4, 1, 13, 0",
            "RANDOM, 4, 2, 31, 0",
            "RANDOM, 8, 1, 33, 0",
            "RANDOM, 8, 2, 33, 0",
            "RANDOM, 8, 2, 3, 0",
            "ONE_EXPERT, 4, 1, 17, 0",
            "ONE_EXPERT, 8, 1, 17, 5",
            "FIRST_TWO, 8, 2, 21, 0",
            "FIRST_TWO, 8, 1, 21, 4",
            "RANDOM, 8, 2, 33, 6",
            "RANDOM, 4, 2, 257, 0"})
    void cpuKernelsMatchTheReferenceForwardAndEveryGradient(Routing routing, int experts, int k, int tokens, int cap) {
        assertMatches(routing + " E=" + experts + " k=" + k + " T=" + tokens, routing, experts, k, tokens, 24, 40,
                cap == 0 ? MoeKernels.DROPLESS : cap);
    }

    @Test
    void largeGroupsRunEachGemmAcrossItsTilesAndStillMatch() {
        assertMatches("one expert, 601 tokens", Routing.RANDOM, 1, 1, 601, 64, 160, MoeKernels.DROPLESS);
        assertMatches("two experts, 601 tokens", Routing.RANDOM, 2, 2, 601, 64, 160, MoeKernels.DROPLESS);
        assertMatches("three experts, 401 tokens, hidden wider than a column tile", Routing.RANDOM, 3, 2, 401, 24,
                dev.symbiont.cpu.gemm.GemmTiles.COLS + 20, MoeKernels.DROPLESS);
    }

    /**
     * A SwiGLU expert layer as {@code MoeFeedForward} runs it (the fused {@code swiglu} gate): one (out, in) Linear weight per
     * expert, transposed views into the grouped GEMM, the gradients written in the weights' own layout.
     */
    private static List<float[]> runPerExpert(boolean reference, long[] ids, int experts, int k, int d, int hidden) {
        try (var scope = Backends.use(CPU); var forced = reference ? FusedKernels.forceReference(MoeKernels.FAMILY) : null) {
            Generator gen = new Generator(23);
            int tokens = ids.length / k;
            Tensor x = Tensor.randn(gen, tokens, d).requiresGrad(true);
            List<Tensor> w1 = new ArrayList<>(), w3 = new ArrayList<>(), w2 = new ArrayList<>();
            for (int e = 0; e < experts; e++) {
                w1.add(Tensor.randn(gen, hidden, d).mul(0.3).detach().requiresGrad(true));
                w3.add(Tensor.randn(gen, hidden, d).mul(0.3).detach().requiresGrad(true));
                w2.add(Tensor.randn(gen, d, hidden).mul(0.3).detach().requiresGrad(true));
            }
            Tensor gate = Tensor.rand(gen, tokens, k).requiresGrad(true);
            MoeKernels.Permuted p = Moe.permute(x, Tensor.fromArray(ids, tokens, k), experts, MoeKernels.DROPLESS);
            Tensor a = Moe.swiglu(Moe.groupedMatmul(p.rows(), transposed(w1), p.groupSizes()),
                    Moe.groupedMatmul(p.rows(), transposed(w3), p.groupSizes()));
            Tensor y = Moe.combine(Moe.groupedMatmul(a, transposed(w2), p.groupSizes()), gate, p.permutation());
            y.backward(Tensor.randn(new Generator(3), y.shape()));
            List<float[]> out = new ArrayList<>();
            out.add(y.toFloatArray());
            out.add(x.grad().toFloatArray());
            for (List<Tensor> ws : List.of(w1, w3, w2)) {
                for (Tensor w : ws) out.add(w.grad() == null ? new float[w.numel()] : w.grad().toFloatArray());
            }
            out.add(gate.grad().toFloatArray());
            return out;
        }
    }

    private static List<Tensor> transposed(List<Tensor> weights) {
        return weights.stream().map(Tensor::t).toList();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"random over 4", "all on expert 2", "empty experts 0 and 3", "large groups"})
    void perExpertWeightsMatchTheReferenceForwardAndEveryGradient(String routing) {
        int experts = 4, k = 2, tokens = routing.equals("large groups") ? 301 : 23;
        Generator gen = new Generator(9);
        long[] ids = new long[tokens * k];
        for (int t = 0; t < tokens; t++) {
            for (int i = 0; i < k; i++) {
                ids[t * k + i] = switch (routing) {
                    case "all on expert 2" -> 2;
                    case "empty experts 0 and 3" -> 1 + (t + i) % 2;
                    default -> (t * 7 + i * 3 + gen.nextInt(2)) % experts; // uneven counts
                };
            }
        }
        int d = routing.equals("large groups") ? 64 : 24, hidden = routing.equals("large groups") ? 160 : 40;
        List<float[]> expected = runPerExpert(true, ids, experts, k, d, hidden);
        List<float[]> actual = runPerExpert(false, ids, experts, k, d, hidden);
        for (int i = 0; i < expected.size(); i++) {
            float[] e = expected.get(i), a = actual.get(i);
            assertTrue(e.length == a.length, routing + " result " + i + ": lengths differ");
            for (int j = 0; j < e.length; j++) {
                if (Math.abs(e[j] - a[j]) > 1e-4 * Math.max(1, Math.abs(e[j]))) {
                    fail(routing + " result " + i + "[" + j + "]: cpu " + a[j] + ", reference " + e[j]);
                }
            }
        }
    }

    @Test
    void cpuGroupedGemmGradientsMatchFiniteDifferencesForBothWeightLayouts() {
        // Expert 1 is empty; expert 0's weight is a transposed (out, in) leaf, expert 2's a plain (in, out) one.
        long[] ids = {0, 2, 2, 0, 2, 0, 0, 2, 2, 0, 0, 2};
        Generator gen = new Generator(4);
        GradCheck.check("cpu grouped GEMM, per-expert weights", CPU, in -> {
            MoeKernels.Permuted p = Moe.permute(in.get(0), Tensor.fromArray(ids, 6, 2), 3, MoeKernels.DROPLESS);
            Tensor y = Moe.groupedMatmul(p.rows(), List.of(in.get(2).t(), in.get(3), in.get(4).t()), p.groupSizes());
            return Moe.combine(y, in.get(1), p.permutation());
        }, GradCheck.randn(gen, 1, 6, 3), GradCheck.uniform(gen, 0.2, 1, 6, 2),
                GradCheck.randn(gen, 1, 4, 3), GradCheck.randn(gen, 1, 3, 4),
                GradCheck.randn(gen, 1, 4, 3));
    }

    /**
     * Without gradients the CPU runs the gate and up projections as one dual GEMM with SwiGLU in
     * its epilogue; with them, two grouped GEMMs and the gate. Both against the composed ops over
     * groups larger than a tile, an empty one, odd sizes, hidden widths that leave a partial
     * vector and span two column tiles, both weight layouts, and a depth past one k block.
     */
    @ParameterizedTest(name = "in {0}, hidden {1}")
    @CsvSource({"6, 10", "40, 300", "600, 33"})
    void groupedSwigluWithAndWithoutGradientsMatchesTheComposedOps(int in, int hidden) {
        try (var scope = Backends.use(CPU)) {
            Generator gen = new Generator(in + hidden);
            Tensor sizes = Tensor.fromArray(new long[] {1030, 0, 13, 7});
            Tensor x = Tensor.randn(gen, 1050, in);
            List<Tensor> gate = new ArrayList<>(), up = new ArrayList<>();
            for (int e = 0; e < 4; e++) {
                gate.add(e % 2 == 0 ? Tensor.randn(gen, hidden, in).mul(0.2).t() : Tensor.randn(gen, in, hidden).mul(0.2));
                up.add(Tensor.randn(gen, hidden, in).mul(0.2).t());
            }
            float[] expected = Moe.swiglu(Moe.groupedMatmul(x, gate, sizes), Moe.groupedMatmul(x, up, sizes)).toFloatArray();
            float[] fused;
            try (var noGrad = dev.symbiont.core.autograd.GradMode.disabled()) {
                fused = Moe.groupedSwiglu(x, gate, up, sizes).toFloatArray();
            }
            float[] kept = Moe.groupedSwiglu(x.detach().requiresGrad(true), gate, up, sizes).toFloatArray();
            for (int i = 0; i < expected.length; i++) {
                float tol = 1e-5f * Math.max(1, Math.abs(expected[i]));
                if (Math.abs(expected[i] - fused[i]) > tol) fail("no grad, element " + i + ": fused " + fused[i] + ", composed " + expected[i]);
                if (Math.abs(expected[i] - kept[i]) > tol) fail("grad, element " + i + ": " + kept[i] + ", composed " + expected[i]);
            }
        }
    }

    @Test
    void cpuGroupedSwigluGradientsMatchFiniteDifferences() {
        // Expert 1 is empty; expert 0's weights are transposed (out, in) leaves, expert 2's plain (in, out) ones.
        Generator gen = new Generator(6);
        GradCheck.check("cpu grouped swiglu", CPU, in -> Moe.groupedSwiglu(in.get(0),
                        List.of(in.get(1).t(), in.get(2), in.get(3)), List.of(in.get(4).t(), in.get(5), in.get(6)),
                        Tensor.fromArray(new long[] {4, 0, 3})),
                GradCheck.randn(gen, 1, 7, 3), GradCheck.randn(gen, 1, 5, 3), GradCheck.randn(gen, 1, 3, 5),
                GradCheck.randn(gen, 1, 3, 5), GradCheck.randn(gen, 1, 5, 3), GradCheck.randn(gen, 1, 3, 5),
                GradCheck.randn(gen, 1, 3, 5));
    }

    /** The router's four outputs combined with fixed weights, and the ids as floats; then x's and the gate's gradients. */
    private static List<float[]> route(CpuBackend backend, boolean reference, int experts, int k, int tokens, int d, boolean renormalize) {
        try (var scope = Backends.use(backend); var forced = reference ? FusedKernels.forceReference(MoeKernels.FAMILY) : null) {
            Generator gen = new Generator(tokens + d);
            Tensor x = Tensor.randn(gen, tokens, d).requiresGrad(true);
            Tensor w = Tensor.randn(gen, experts, d).mul(0.1).detach().requiresGrad(true);
            MoeKernels.Routed r = Moe.route(x, w, k, renormalize);
            Tensor loss = r.logits().mul(Tensor.randn(gen, tokens, experts)).sum()
                    .add(r.probs().mul(Tensor.randn(gen, tokens, experts)).sum())
                    .add(r.weights().mul(Tensor.randn(gen, tokens, k)).sum())
                    .add(r.logsumexp().square().mean());
            loss.backward();
            return List.of(r.logits().toFloatArray(), r.probs().toFloatArray(), r.weights().toFloatArray(),
                    r.logsumexp().toFloatArray(), r.expertIds().to(dev.symbiont.core.DType.FLOAT32).toFloatArray(),
                    x.grad().toFloatArray(), w.grad().toFloatArray());
        }
    }

    /**
     * The router's one-pass kernel, vector and scalar, against the composed reference: widths with
     * whole vectors and a tail (300), expert counts past the sweeps of four (9), enough tokens
     * (1,000) that the rows split over the team; the expert ids exactly.
     */
    @ParameterizedTest(name = "E {0}, k {1}, T {2}, d {3}, renormalize {4}")
    @CsvSource({"8, 2, 1000, 64, true", "9, 3, 257, 300, false", "1, 1, 5, 7, true", "16, 1, 64, 33, true"})
    void routerKernelsVectorAndScalarMatchTheReference(int experts, int k, int tokens, int d, boolean renormalize) {
        List<float[]> expected = route(CPU, true, experts, k, tokens, d, renormalize);
        CpuBackend scalar = new CpuBackend(dev.symbiont.cpu.gemm.GemmPath.EJML, false);
        for (List<float[]> actual : List.of(route(CPU, false, experts, k, tokens, d, renormalize),
                route(scalar, false, experts, k, tokens, d, renormalize))) {
            String[] names = {"logits", "probs", "weights", "logsumexp", "expert ids", "dx", "dWg"};
            for (int i = 0; i < names.length; i++) {
                float[] e = expected.get(i), a = actual.get(i);
                assertTrue(e.length == a.length, names[i] + ": lengths differ");
                for (int j = 0; j < e.length; j++) {
                    double tol = i == 4 ? 0 : 1e-4 * Math.max(1, Math.abs(e[j]));
                    if (Math.abs(e[j] - a[j]) > tol) fail(names[i] + "[" + j + "]: cpu " + a[j] + ", reference " + e[j]);
                }
            }
        }
    }

    /**
     * The same input routes by the same bits on every call, before and after the JIT compiles the
     * kernel (a lane reduction whose order differs between interpreted and compiled code failed
     * this: jittered routing replayed under checkpointing would then differ).
     */
    @Test
    void routerLogitsAreTheSameBitsOnEveryCall() {
        try (var scope = Backends.use(CPU)) {
            Generator gen = new Generator(21);
            Tensor x = Tensor.randn(gen, 64, 256), w = Tensor.randn(gen, 8, 256);
            float[] first = Moe.route(x, w, 2, true).logits().toFloatArray();
            for (int call = 1; call < 400; call++) {
                float[] again = Moe.route(x, w, 2, true).logits().toFloatArray();
                for (int i = 0; i < first.length; i++) {
                    if (Float.floatToIntBits(first[i]) != Float.floatToIntBits(again[i])) {
                        fail("call " + call + ", logit " + i + ": " + again[i] + ", first call " + first[i]);
                    }
                }
            }
        }
    }

    @Test
    void cpuRouterGradientsMatchFiniteDifferences() {
        Generator gen = new Generator(8);
        for (boolean renormalize : new boolean[] {true, false}) {
            GradCheck.check("cpu route, renormalize " + renormalize, CPU, in -> {
                MoeKernels.Routed r = Moe.route(in.get(0), in.get(1), 2, renormalize);
                return r.weights().sum(1, false).add(r.probs().narrow(1, 1, 1).reshape(6)).add(r.logsumexp().square())
                        .add(r.logits().narrow(1, 3, 1).reshape(6));
            }, GradCheck.randn(gen, 1, 6, 5), GradCheck.randn(gen, 0.5, 4, 5));
        }
    }

    @Test
    void theCpuBackendHandsOutItsOwnMoeKernels() {
        assertInstanceOf(CpuMoe.class, FusedKernels.of(MoeKernels.FAMILY, CPU));
        assertInstanceOf(CpuMoe.class, FusedKernels.of(MoeKernels.FAMILY, new CpuBackend(dev.symbiont.cpu.gemm.GemmPath.EJML, false)));
    }

    @Test
    void badExpertIdsAndPermutationsNameTheOpAndTheValue() {
        try (var scope = Backends.use(CPU)) {
            Tensor x = Tensor.randn(new Generator(1), 3, 2);
            var e = assertThrows(IndexOutOfBoundsException.class,
                    () -> Moe.permute(x, Tensor.fromArray(new long[] {0, 7, 1}, 3, 1), 4, MoeKernels.DROPLESS));
            assertTrue(e.getMessage().contains("moe_permute") && e.getMessage().contains("7"), e.getMessage());
            var c = assertThrows(IllegalArgumentException.class, () -> Moe.combine(Tensor.randn(new Generator(1), 2, 2),
                    Tensor.rand(new Generator(1), 2, 1), Tensor.fromArray(new long[] {1, 1})));
            assertTrue(c.getMessage().contains("moe_combine") && c.getMessage().contains("twice"), c.getMessage());
            var g = assertThrows(IllegalArgumentException.class, () -> Moe.groupedMatmul(x, Tensor.randn(new Generator(1), 2, 2, 2),
                    Tensor.fromArray(new long[] {1, 1})));
            assertTrue(g.getMessage().contains("grouped_matmul") && g.getMessage().contains("sum to 2"), g.getMessage());
        }
    }
}
