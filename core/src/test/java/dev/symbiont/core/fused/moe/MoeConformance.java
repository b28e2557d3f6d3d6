package dev.symbiont.core.fused.moe;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The moe family (permute, grouped GEMM, combine), forward and every gradient (tokens, expert
 * weights, routing weights), against its reference: E ∈ {1, 4, 8}, k ∈ {1, 2}, odd token
 * counts, empty experts, every token on one expert, capacity with drops, transposed weights.
 */
public abstract class MoeConformance extends ConformanceBase {

    /** Dispatch modes in the CSV tables: 0 is dropless, otherwise the capacity per expert. */
    private static int capacity(int c) { return c == 0 ? MoeKernels.DROPLESS : c; }

    /** Each token's top-k experts by random router logits: distinct experts per token. */
    private static Tensor routedIds(Inputs in, int tokens, int experts, int k) {
        return in.constant(tokens, experts).topk(k, 1, true).indices();
    }

    /** A two-layer expert FFN through the family: combine(W2_e · silu(W1_e · x)) with learned routing weights. */
    private static Tensor expertLayer(Inputs in, Tensor ids, int experts, int d, int hidden, int capacity, boolean transposedWeights) {
        int tokens = ids.size(0), k = ids.size(1);
        Tensor x = in.randn(tokens, d);
        Tensor w1 = transposedWeights ? in.transposed(experts, d, hidden) : in.randn(experts, d, hidden);
        Tensor w2 = in.randn(experts, hidden, d);
        Tensor routing = in.uniform(0.1, 1.0, tokens, k);
        MoeKernels.Permuted p = Moe.permute(x, ids, experts, capacity);
        Tensor h = Moe.groupedMatmul(p.rows(), w1, p.groupSizes()).silu();
        Tensor y = Moe.groupedMatmul(h, w2, p.groupSizes());
        return Moe.combine(y, routing, p.permutation());
    }

    @ParameterizedTest(name = "E {0}, k {1}, T {2}, capacity {3}")
    @CsvSource({
            "1, 1, 13, 0",
            "4, 1, 13, 0",
            "4, 2, 13, 0",
            "8, 1, 33, 0",
            "8, 2, 33, 0",
            "8, 2, 3, 0",
            "8, 2, 1, 0",
            "4, 2, 13, 4",
            "8, 2, 33, 5",
            "4, 1, 13, 1"})
    void expertLayerMatchesReferenceForwardAndEveryGradient(int experts, int k, int tokens, int cap) {
        assertMatchesReference("moe E=" + experts + " k=" + k + " T=" + tokens + " cap=" + cap,
                in -> expertLayer(in, routedIds(in, tokens, experts, k), experts, 6, 10, capacity(cap), false),
                matmulTolerance(10));
    }

    @Test
    void everyTokenOnOneExpertAndEmptyExpertsMatchReference() {
        assertMatchesReference("all on expert 2", in -> expertLayer(in, Tensor.full(2, DType.INT64, 9, 1), 4, 5, 7,
                MoeKernels.DROPLESS, false), matmulTolerance(7));
        assertMatchesReference("all on expert 2, capacity 4", in -> expertLayer(in, Tensor.full(2, DType.INT64, 9, 1), 4, 5, 7,
                4, false), matmulTolerance(7));
        assertMatchesReference("int32 ids on two experts of eight", in -> expertLayer(in,
                Tensor.fromArray(new int[] {7, 3, 3, 7, 7, 3, 3, 7, 7, 3}, 5, 2), 8, 5, 7, MoeKernels.DROPLESS, false),
                matmulTolerance(7));
    }

    @Test
    void transposedExpertWeightsMatchReference() {
        assertMatchesReference("transposed W1", in -> expertLayer(in, routedIds(in, 17, 4, 2), 4, 8, 12,
                MoeKernels.DROPLESS, true), matmulTolerance(12));
    }

    @ParameterizedTest(name = "E {0}, k {1}, T {2}, capacity {3}")
    @CsvSource({"4, 2, 13, 0", "8, 1, 33, 3", "8, 2, 3, 0"})
    void permuteGivesTheReferenceRowsGroupsAndPermutation(int experts, int k, int tokens, int cap) {
        assertMatchesReference("permute rows", in -> Moe.permute(in.randn(tokens, 5), routedIds(in, tokens, experts, k),
                experts, capacity(cap)).rows(), EXACT);
        assertMatchesReference("group sizes", in -> Moe.permute(in.randn(tokens, 5), routedIds(in, tokens, experts, k),
                experts, capacity(cap)).groupSizes(), EXACT);
        assertMatchesReference("offsets", in -> Moe.permute(in.randn(tokens, 5), routedIds(in, tokens, experts, k),
                experts, capacity(cap)).offsets(), EXACT);
        assertMatchesReference("permutation", in -> Moe.permute(in.randn(tokens, 5), routedIds(in, tokens, experts, k),
                experts, capacity(cap)).permutation(), EXACT);
    }

    /**
     * The grouped GEMM over one weight per expert, as a layer with a Linear per expert calls it:
     * experts alternate between transposed (a Linear's (out, in) weight seen as (in, out)) and
     * plain weights, so both gradient layouts are compared.
     */
    private static Tensor perExpertLayer(Inputs in, Tensor ids, int experts, int d, int hidden) {
        Tensor x = in.randn(ids.size(0), d);
        java.util.List<Tensor> w1 = new java.util.ArrayList<>(), w2 = new java.util.ArrayList<>();
        for (int e = 0; e < experts; e++) {
            w1.add(e % 2 == 0 ? in.transposed(d, hidden) : in.randn(d, hidden));
            w2.add(e % 2 == 0 ? in.randn(hidden, d) : in.transposed(hidden, d));
        }
        Tensor routing = in.uniform(0.1, 1.0, ids.size(0), ids.size(1));
        MoeKernels.Permuted p = Moe.permute(x, ids, experts, MoeKernels.DROPLESS);
        Tensor h = Moe.groupedMatmul(p.rows(), w1, p.groupSizes()).silu();
        return Moe.combine(Moe.groupedMatmul(h, w2, p.groupSizes()), routing, p.permutation());
    }

    @Test
    void perExpertWeightsMatchReferenceWithUnevenEmptyAndSingleExpertLoads() {
        assertMatchesReference("per-expert weights, random routing", in -> perExpertLayer(in, routedIds(in, 19, 4, 2), 4, 6, 10),
                matmulTolerance(10));
        assertMatchesReference("per-expert weights, all on expert 1", in -> perExpertLayer(in, Tensor.full(1, DType.INT64, 9, 1),
                3, 5, 7), matmulTolerance(7));
        assertMatchesReference("per-expert weights, two of eight experts", in -> perExpertLayer(in,
                Tensor.fromArray(new long[] {7, 2, 2, 7, 7, 2, 2, 7, 7, 2, 2, 7}, 6, 2), 8, 5, 7), matmulTolerance(7));
    }

    @Test
    void groupedMatmulOnWideGroupsMatchesReference() {
        // Groups bigger than a GEMM tile, one empty, with a non-contiguous input.
        assertMatchesReference("grouped 300 rows", in -> Moe.groupedMatmul(in.transposed(300, 40), in.randn(3, 40, 70),
                Tensor.fromArray(new long[] {130, 0, 170})), matmulTolerance(40));
    }

    @ParameterizedTest(name = "{0} × {1}")
    @CsvSource({"1, 1", "7, 13", "33, 40", "300, 120"})
    void swigluMatchesReferenceForwardAndBothGradients(int rows, int hidden) {
        // 300 × 120 is past one thread's share of elementwise work; the odd sizes leave a vector tail.
        assertMatchesReference("swiglu " + rows + " × " + hidden, in -> Moe.swiglu(in.randn(rows, hidden), in.randn(rows, hidden)),
                ELEMENTWISE);
        assertMatchesReference("swiglu of a transposed gate " + rows + " × " + hidden,
                in -> Moe.swiglu(in.transposed(rows, hidden), in.randn(rows, hidden)), ELEMENTWISE);
    }

    @Test
    void swigluExpertLayerMatchesReferenceForwardAndEveryGradient() {
        assertMatchesReference("swiglu experts", in -> {
            Tensor ids = routedIds(in, 21, 4, 2);
            Tensor x = in.randn(21, 6), w1 = in.randn(4, 6, 10), w3 = in.randn(4, 6, 10), w2 = in.randn(4, 10, 6);
            MoeKernels.Permuted p = Moe.permute(x, ids, 4, MoeKernels.DROPLESS);
            Tensor h = Moe.swiglu(Moe.groupedMatmul(p.rows(), w1, p.groupSizes()), Moe.groupedMatmul(p.rows(), w3, p.groupSizes()));
            return Moe.combine(Moe.groupedMatmul(h, w2, p.groupSizes()), in.uniform(0.1, 1.0, 21, 2), p.permutation());
        }, matmulTolerance(10));
    }

    /**
     * The gate and up projections with SwiGLU as one op, over permuted rows: experts alternate
     * between transposed (a Linear's weight seen as (in, out)) and plain weights, so both
     * gradient layouts are compared; the hidden widths leave partial vectors.
     */
    @ParameterizedTest(name = "E {0}, k {1}, T {2}, d {3}, hidden {4}")
    @CsvSource({"1, 1, 13, 6, 10", "4, 2, 21, 6, 10", "8, 2, 33, 5, 17", "8, 1, 3, 7, 9", "4, 2, 40, 9, 40"})
    void groupedSwigluMatchesReferenceForwardAndEveryGradient(int experts, int k, int tokens, int d, int hidden) {
        assertMatchesReference("grouped swiglu E=" + experts + " k=" + k + " T=" + tokens, in -> {
            Tensor x = in.randn(tokens, d);
            java.util.List<Tensor> gate = new java.util.ArrayList<>(), up = new java.util.ArrayList<>();
            for (int e = 0; e < experts; e++) {
                gate.add(e % 2 == 0 ? in.transposed(d, hidden) : in.randn(d, hidden));
                up.add(e % 2 == 1 ? in.transposed(d, hidden) : in.randn(d, hidden));
            }
            MoeKernels.Permuted p = Moe.permute(x, routedIds(in, tokens, experts, k), experts, MoeKernels.DROPLESS);
            return Moe.groupedSwiglu(p.rows(), gate, up, p.groupSizes());
        }, matmulTolerance(d));
    }

    /**
     * The router as one op, forward and the gradients of x and the gate weight through each of
     * its outputs alone and through all four together (logits, probabilities, weights with and
     * without renormalisation, logsumexp); d 40 leaves a partial vector after two whole ones, E 5
     * and 9 leave experts after the sweeps of four.
     */
    @ParameterizedTest(name = "E {0}, k {1}, T {2}, d {3}, renormalize {4}, through {5}")
    @CsvSource({
            "8, 2, 33, 40, true, all", "8, 2, 33, 40, false, all", "1, 1, 7, 6, true, all", "5, 3, 13, 17, true, all",
            "9, 2, 21, 40, true, weights", "9, 2, 21, 40, false, weights", "8, 2, 17, 40, true, probs",
            "8, 2, 17, 40, true, logits", "8, 2, 17, 40, true, logsumexp", "4, 4, 5, 8, true, all"})
    void routeMatchesReferenceForwardAndEveryGradient(int experts, int k, int tokens, int d, boolean renormalize, String through) {
        assertMatchesReference("route E=" + experts + " k=" + k + " T=" + tokens + " " + through, in -> {
            MoeKernels.Routed r = Moe.route(in.randn(tokens, d), in.randn(experts, d), k, renormalize);
            Tensor logits = r.logits().mul(in.constant(tokens, experts)).sum(1, false);
            Tensor probs = r.probs().mul(in.constant(tokens, experts)).sum(1, false);
            Tensor weights = r.weights().mul(in.constant(tokens, k)).sum(1, false);
            Tensor lse = r.logsumexp();
            return switch (through) {
                case "logits" -> logits;
                case "probs" -> probs;
                case "weights" -> weights;
                case "logsumexp" -> lse;
                default -> logits.add(probs).add(weights).add(lse);
            };
        }, matmulTolerance(d));
        assertMatchesReference("route's expert ids", in -> Moe.route(in.randn(tokens, d), in.randn(experts, d), k, renormalize)
                .expertIds(), EXACT);
    }

    /** Tied logits (a zero gate) pick the lower experts first, as a stable topk does. */
    @Test
    void routeBreaksTiesTowardTheLowerExpertAsTheReference() {
        assertMatchesReference("tied route ids", in -> Moe.route(in.randn(6, 16), Tensor.zeros(8, 16), 3, true).expertIds(), EXACT);
        assertMatchesReference("tied route weights", in -> Moe.route(in.randn(6, 16), Tensor.zeros(8, 16), 3, true).weights(),
                ELEMENTWISE);
    }
}
