package dev.symbiont.core.fused.moe;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.ops.Checks;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.core.profile.OpCategory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The mixture-of-experts ops, through the backend's moe family ({@link MoeKernels}): a layer
 * routes each of T tokens to k of E experts, then
 *
 * <pre>{@code
 * Permuted p = Moe.permute(x, expertIds, E, capacity);         // rows (R, d) grouped by expert
 * Tensor h   = Moe.groupedMatmul(p.rows(), w, p.groupSizes()); // each group times its expert's (d, h)
 * Tensor y   = Moe.combine(h', weights, p.permutation());      // (T, d) = Σ_i w[t, i] · y[slot t·k + i]
 * }</pre>
 *
 * With {@link MoeKernels#DROPLESS} every slot is kept (R = T·k, groups of any size, no padding);
 * with a capacity C each expert keeps its first C slots in slot order (token order, then choice)
 * and a dropped slot adds nothing to its token's output (its token passes through the residual).
 *
 * <p>Gradients flow to x (through permute), to the rows and the expert weights (through the
 * grouped GEMM), and to the sorted rows and the routing weights (through combine), so the router
 * learns. Expert ids and the permutation get none.
 *
 * <p>Argument checks here are on shapes and dtypes; values (expert ids in [0, E), group sizes
 * summing to the rows) are checked by the kernels, which throw naming the op and the offending value.
 */
public final class Moe {
    private Moe() {}

    static final String PERMUTE = "moe_permute";
    static final String GROUPED_MATMUL = "grouped_matmul";
    static final String COMBINE = "moe_combine";
    static final String SWIGLU = "moe_swiglu";
    static final String GROUPED_SWIGLU = "grouped_swiglu";
    static final String ROUTE = "moe_route";

    private static final FusedOp<MoeKernels> PERMUTE_OP = FusedOp.of(MoeKernels.FAMILY, PERMUTE, OpCategory.ROUTING);
    private static final FusedOp<MoeKernels> GROUPED_OP = FusedOp.of(MoeKernels.FAMILY, GROUPED_MATMUL, OpCategory.MATMUL);
    private static final FusedOp<MoeKernels> COMBINE_OP = FusedOp.of(MoeKernels.FAMILY, COMBINE, OpCategory.ROUTING);
    private static final FusedOp<MoeKernels> SWIGLU_OP = FusedOp.of(MoeKernels.FAMILY, SWIGLU, OpCategory.ELEMENTWISE);
    private static final FusedOp<MoeKernels> ROUTE_OP = FusedOp.of(MoeKernels.FAMILY, ROUTE, OpCategory.ROUTING);
    private static final FusedOp<MoeKernels> GROUPED_SWIGLU_OP = FusedOp.of(MoeKernels.FAMILY, GROUPED_SWIGLU, OpCategory.MATMUL);

    /**
     * The top-k router as one op: logits h = x·Wgᵀ, probabilities p = softmax(h) in float32, each
     * token's k most probable experts (ties to the lower index) with their weights — renormalised
     * to sum to 1 (Mixtral) or p as is (Switch, GShard) — and logsumexp(h), the z-loss's input.
     * Equal to {@code x.matmul(gateWeight.t())}, {@code softmax}, {@code topk} and the reductions,
     * which a kernel may do in one pass over each token's row.
     *
     * @param x           (T, d) float32, differentiable
     * @param gateWeight  (E, d) float32, differentiable (the gate's Linear weight, no bias)
     * @param k           1 ≤ k ≤ E
     * @param renormalize whether each token's k weights are rescaled to sum to 1
     * @return logits and probs (T, E), expertIds (T, k) int64 (no gradient), weights (T, k), logsumexp (T);
     *         all but expertIds with autograd history to x and gateWeight
     * @throws IllegalArgumentException for wrong ranks or dtypes, widths that disagree, k outside [1, E]
     */
    public static MoeKernels.Routed route(Tensor x, Tensor gateWeight, int k, boolean renormalize) {
        Checks.sameBackend(ROUTE, x, gateWeight);
        floats(ROUTE, "x", x, 2);
        floats(ROUTE, "gateWeight", gateWeight, 2);
        if (gateWeight.size(1) != x.size(1)) {
            throw new IllegalArgumentException(ROUTE + ": gateWeight " + Arrays.toString(gateWeight.shape())
                    + " must be (experts, " + x.size(1) + ") for x " + Arrays.toString(x.shape()));
        }
        int experts = gateWeight.size(0), tokens = x.size(0);
        if (experts < 1) throw new IllegalArgumentException(ROUTE + ": gateWeight " + Arrays.toString(gateWeight.shape()) + " has no experts");
        checkTopK(ROUTE, k, experts);
        Tensor x2 = x.detach(), w2 = gateWeight.detach();
        MoeKernels.Routed[] result = new MoeKernels.Routed[1];
        long flops = 2L * tokens * experts * x.size(1) + 6L * tokens * experts;
        Tensor[] out = ROUTE_OP.runOutputs(x.backend(), flops, FusedOp.bytes(x, gateWeight) + 8L * tokens * experts,
                kernels -> {
                    MoeKernels.Routed r = kernels.route(x2, w2, k, renormalize);
                    result[0] = r;
                    return new FusedOp.OutputsResult<>(new Tensor[] {r.logits(), r.probs(), r.weights(), r.logsumexp()}, r);
                },
                (kernels, r, g) -> {
                    MoeKernels.RouteGrads grads = kernels.routeBackward(g[0], g[1], g[2], g[3], x2, w2, r, renormalize);
                    return new Tensor[] {grads.dx(), grads.dGateWeight()};
                },
                x, gateWeight);
        return new MoeKernels.Routed(out[0], out[1], result[0].expertIds(), out[2], out[3]);
    }

    /**
     * Sorts the token slots by expert, keeping at most {@code capacity} per expert.
     *
     * @param x          (T, d) float32, differentiable
     * @param expertIds  (T, k) int32 or int64 in [0, numExperts), 1 ≤ k ≤ numExperts
     * @param numExperts E ≥ 1
     * @param capacity   ≥ 1, or {@link MoeKernels#DROPLESS}
     * @return rows (R, d) with autograd history to x; group sizes and offsets (E) and the permutation (R), int64
     * @throws IllegalArgumentException for wrong ranks or dtypes, disagreeing token counts, k outside [1, E], capacity &lt; 1
     * @throws IndexOutOfBoundsException for an expert id outside [0, E) (from the kernel, naming the id)
     */
    public static MoeKernels.Permuted permute(Tensor x, Tensor expertIds, int numExperts, int capacity) {
        Checks.sameBackend(PERMUTE, x, expertIds);
        floats(PERMUTE, "x", x, 2);
        Checks.integer(PERMUTE, "expertIds", expertIds);
        Checks.rank(PERMUTE, "expertIds", expertIds, 2);
        if (expertIds.size(0) != x.size(0)) {
            throw new IllegalArgumentException(PERMUTE + ": expertIds " + Arrays.toString(expertIds.shape())
                    + " must have one row per token of x " + Arrays.toString(x.shape()));
        }
        if (numExperts < 1) throw new IllegalArgumentException(PERMUTE + ": numExperts must be ≥ 1, got " + numExperts);
        checkTopK(PERMUTE, expertIds.size(1), numExperts);
        if (capacity < 1) {
            throw new IllegalArgumentException(PERMUTE + ": capacity must be ≥ 1 (or MoeKernels.DROPLESS), got " + capacity);
        }
        int tokens = x.size(0), k = expertIds.size(1);
        Tensor x2 = x.detach(), ids = expertIds.detach();
        MoeKernels.Permuted[] result = new MoeKernels.Permuted[1];
        Tensor rows = PERMUTE_OP.run(x.backend(), 0, 2L * FusedOp.bytes(x) * k + FusedOp.bytes(expertIds),
                kernels -> {
                    result[0] = kernels.permute(x2, ids, numExperts, capacity);
                    return new FusedOp.Result<>(result[0].rows(), result[0].permutation());
                },
                (kernels, permutation, g) -> new Tensor[] {kernels.permuteBackward(g, permutation, tokens, k)},
                x);
        MoeKernels.Permuted p = result[0];
        return new MoeKernels.Permuted(rows, p.groupSizes(), p.offsets(), p.permutation());
    }

    /**
     * The grouped expert GEMM: rows {@code [offset_e, offset_e + size_e)} of x times weights[e].
     *
     * @param x          (R, in) float32, rows grouped by expert (permute's rows)
     * @param weights    (E, in, out) float32, any strides (e.g. the transpose of stacked (E, out, in) Linear weights)
     * @param groupSizes (E) int32 or int64 summing to R
     * @return (R, out), differentiable w.r.t. x and weights
     * @throws IllegalArgumentException for wrong ranks or dtypes, in-sizes or expert counts that disagree,
     *         or group sizes that are negative or do not sum to R (from the kernel)
     */
    public static Tensor groupedMatmul(Tensor x, Tensor weights, Tensor groupSizes) {
        Checks.sameBackend(GROUPED_MATMUL, x, weights, groupSizes);
        floats(GROUPED_MATMUL, "weights", weights, 3);
        Tensor w2 = weights.detach();
        List<Tensor> experts = new ArrayList<>(weights.size(0));
        for (int e = 0; e < weights.size(0); e++) experts.add(w2.select(0, e));
        checkGrouped(x, experts, groupSizes, Arrays.toString(weights.shape()));
        // One autograd input for the stack: its gradient is the experts' gradients stacked.
        return grouped(x, experts, groupSizes, dw -> new Tensor[] {Tensor.stack(dw, 0)}, weights);
    }

    /**
     * The grouped expert GEMM over one weight per expert — each expert's own parameter, so a
     * layer need not stack its experts' weights every step; each gets its own gradient.
     *
     * @param x          (R, in) float32, rows grouped by expert (permute's rows)
     * @param weights    E ≥ 1 tensors (in, out) float32 of one shape, any strides (e.g. a Linear's
     *                   (out, in) weight transposed)
     * @param groupSizes (E) int32 or int64 summing to R
     * @return (R, out), differentiable w.r.t. x and every weight
     * @throws IllegalArgumentException for wrong ranks or dtypes, expert weights of different shapes,
     *         in-sizes or expert counts that disagree, or group sizes that are negative or do not sum to R
     */
    public static Tensor groupedMatmul(Tensor x, List<Tensor> weights, Tensor groupSizes) {
        expertWeights(GROUPED_MATMUL, "expert", x, weights, groupSizes);
        int[] first = weights.get(0).shape();
        List<Tensor> detached = weights.stream().map(Tensor::detach).toList();
        checkGrouped(x, detached, groupSizes, weights.size() + " × " + Arrays.toString(first));
        return grouped(x, detached, groupSizes, dw -> dw.toArray(new Tensor[0]), weights.toArray(new Tensor[0]));
    }

    /**
     * An expert layer's gate and up projections with SwiGLU between them, as one op:
     * {@code swiglu(groupedMatmul(x, gate, sizes), groupedMatmul(x, up, sizes))} — rows
     * {@code [offset_e, offset_e + size_e)} of x times gate[e] and up[e], h = silu(x·gate) ⊙ (x·up).
     * A kernel may apply the gate to each tile of the two products while it is in cache, and
     * without gradients need never write the products out.
     *
     * @param x          (R, in) float32, rows grouped by expert (permute's rows)
     * @param gate       E ≥ 1 tensors (in, h) float32 of one shape, any strides (Mixtral's w1 weights transposed)
     * @param up         E tensors of gate's shape (w3)
     * @param groupSizes (E) int32 or int64 summing to R
     * @return (R, h), differentiable w.r.t. x and every gate and up weight
     * @throws IllegalArgumentException for wrong ranks or dtypes, weights of different shapes or counts,
     *         in-sizes or expert counts that disagree, or group sizes that are negative or do not sum to R
     */
    public static Tensor groupedSwiglu(Tensor x, List<Tensor> gate, List<Tensor> up, Tensor groupSizes) {
        expertWeights(GROUPED_SWIGLU, "gate", x, gate, groupSizes);
        expertWeights(GROUPED_SWIGLU, "up", x, up, groupSizes);
        if (gate.size() != up.size() || !Arrays.equals(gate.get(0).shape(), up.get(0).shape())) {
            throw new IllegalArgumentException(GROUPED_SWIGLU + ": " + gate.size() + " gate weights " + Arrays.toString(gate.get(0).shape())
                    + " and " + up.size() + " up weights " + Arrays.toString(up.get(0).shape()) + " must match in count and shape");
        }
        List<Tensor> g = gate.stream().map(Tensor::detach).toList(), u = up.stream().map(Tensor::detach).toList();
        checkGrouped(x, g, groupSizes, gate.size() + " × " + Arrays.toString(gate.get(0).shape()));
        int experts = gate.size(), in = g.get(0).size(0), h = g.get(0).size(1), rows = x.size(0);
        Tensor[] inputs = new Tensor[1 + 2 * experts];
        inputs[0] = x;
        for (int e = 0; e < experts; e++) {
            inputs[1 + e] = gate.get(e);
            inputs[1 + experts + e] = up.get(e);
        }
        boolean recorded = GradMode.isEnabled() && Arrays.stream(inputs).anyMatch(Tensor::requiresGrad);
        Tensor x2 = x.detach(), sizes = groupSizes.detach();
        long flops = 2L * 2 * rows * in * h + 6L * rows * h;
        long bytes = FusedOp.bytes(x) + 8L * experts * in * h + 4L * rows * h * (recorded ? 3 : 1);
        return GROUPED_SWIGLU_OP.run(x.backend(), flops, bytes,
                kernels -> {
                    MoeKernels.GatedRows r = kernels.groupedSwiglu(x2, g, u, sizes, recorded);
                    return new FusedOp.Result<>(r.output(), r);
                },
                (kernels, kept, grad) -> {
                    MoeKernels.GatedGrads gr = kernels.groupedSwigluBackward(grad, x2, g, u, sizes, kept.gate(), kept.up());
                    Tensor[] grads = new Tensor[inputs.length];
                    grads[0] = gr.dx();
                    for (int e = 0; e < experts; e++) {
                        grads[1 + e] = gr.dGate().get(e);
                        grads[1 + experts + e] = gr.dUp().get(e);
                    }
                    return grads;
                }, inputs);
    }

    /** E ≥ 1 expert weights (in, out) float32 of one shape on x's backend, else an error naming {@code op} and {@code what}. */
    private static void expertWeights(String op, String what, Tensor x, List<Tensor> weights, Tensor groupSizes) {
        if (weights.isEmpty()) throw new IllegalArgumentException(op + ": no " + what + " weights");
        int[] first = weights.get(0).shape();
        for (int e = 0; e < weights.size(); e++) {
            Tensor w = weights.get(e);
            Checks.sameBackend(op, x, w, groupSizes);
            floats(op, what + "[" + e + "]", w, 2);
            if (!Arrays.equals(w.shape(), first)) {
                throw new IllegalArgumentException(op + ": " + what + " weights of inconsistent shapes: " + what + "[0] "
                        + Arrays.toString(first) + ", " + what + "[" + e + "] " + Arrays.toString(w.shape()));
            }
        }
    }

    private static void checkGrouped(Tensor x, List<Tensor> weights, Tensor groupSizes, String weightShape) {
        if (weights.isEmpty()) throw new IllegalArgumentException(GROUPED_MATMUL + ": no expert weights (" + weightShape + ")");
        floats(GROUPED_MATMUL, "x", x, 2);
        indexVector(GROUPED_MATMUL, "groupSizes", groupSizes);
        int in = weights.get(0).size(0);
        if (in != x.size(1)) {
            throw new IllegalArgumentException(GROUPED_MATMUL + ": x " + Arrays.toString(x.shape()) + " has " + x.size(1)
                    + " columns but the expert weights " + weightShape + " take " + in);
        }
        if (groupSizes.size(0) != weights.size()) {
            throw new IllegalArgumentException(GROUPED_MATMUL + ": " + groupSizes.size(0) + " group sizes for "
                    + weights.size() + " experts (weights " + weightShape + ")");
        }
    }

    /** The op itself; {@code weightGrads} turns the experts' gradients into those of {@code weightInputs}. */
    private static Tensor grouped(Tensor x, List<Tensor> weights, Tensor groupSizes,
                                  Function<List<Tensor>, Tensor[]> weightGrads, Tensor... weightInputs) {
        Tensor x2 = x.detach(), sizes = groupSizes.detach();
        int in = weights.get(0).size(0), out = weights.get(0).size(1);
        long flops = 2L * x.size(0) * in * out;
        long bytes = FusedOp.bytes(x) + 4L * weights.size() * in * out + 4L * x.size(0) * out;
        Tensor[] inputs = new Tensor[1 + weightInputs.length];
        inputs[0] = x;
        System.arraycopy(weightInputs, 0, inputs, 1, weightInputs.length);
        return GROUPED_OP.run(x.backend(), flops, bytes,
                kernels -> new FusedOp.Result<>(kernels.groupedMatmul(x2, weights, sizes), null),
                (kernels, none, g) -> {
                    MoeKernels.GroupedGrads gr = kernels.groupedMatmulBackward(g, x2, weights, sizes);
                    Tensor[] dw = weightGrads.apply(gr.dWeights());
                    Tensor[] grads = new Tensor[1 + dw.length];
                    grads[0] = gr.dx();
                    System.arraycopy(dw, 0, grads, 1, dw.length);
                    return grads;
                }, inputs);
    }

    /**
     * The experts' SwiGLU gate, {@code gate.silu().mul(up)} as one op: forward reads both inputs
     * once and writes the product (no SiLU output in between), backward reads the gradient and
     * both inputs once and writes both gradients.
     *
     * @param gate (R, h) float32, the W1 projection's output
     * @param up   (R, h) float32, the W3 projection's output
     * @return (R, h), differentiable w.r.t. gate and up
     * @throws IllegalArgumentException for wrong ranks or dtypes, or shapes that differ
     */
    public static Tensor swiglu(Tensor gate, Tensor up) {
        Checks.sameBackend(SWIGLU, gate, up);
        floats(SWIGLU, "gate", gate, 2);
        floats(SWIGLU, "up", up, 2);
        if (!Arrays.equals(gate.shape(), up.shape())) {
            throw new IllegalArgumentException(SWIGLU + ": gate " + Arrays.toString(gate.shape()) + " and up "
                    + Arrays.toString(up.shape()) + " must have one shape");
        }
        Tensor a = gate.detach(), b = up.detach();
        return SWIGLU_OP.run(gate.backend(), 6L * gate.numel(), 3 * FusedOp.bytes(gate),
                kernels -> new FusedOp.Result<>(kernels.swiglu(a, b), null),
                (kernels, none, g) -> {
                    MoeKernels.SwigluGrads gr = kernels.swigluBackward(g, a, b);
                    return new Tensor[] {gr.dGate(), gr.dUp()};
                }, gate, up);
    }

    /**
     * Back to token order: out[t] = Σ_i w[t, i] · y[row of slot t·k + i] (dropped slots add nothing).
     *
     * @param ySorted        (R, d) float32, the experts' outputs in permute's row order
     * @param routingWeights (T, k) float32
     * @param permutation    (R) int, permute's slot of each row, each in [0, T·k)
     * @return (T, d), differentiable w.r.t. ySorted and routingWeights
     * @throws IllegalArgumentException for wrong ranks or dtypes, or more rows than slots
     */
    public static Tensor combine(Tensor ySorted, Tensor routingWeights, Tensor permutation) {
        Checks.sameBackend(COMBINE, ySorted, routingWeights, permutation);
        floats(COMBINE, "ySorted", ySorted, 2);
        floats(COMBINE, "routingWeights", routingWeights, 2);
        indexVector(COMBINE, "permutation", permutation);
        int rows = ySorted.size(0), slots = routingWeights.size(0) * routingWeights.size(1);
        if (permutation.size(0) != rows || rows > slots) {
            throw new IllegalArgumentException(COMBINE + ": ySorted " + Arrays.toString(ySorted.shape()) + ", permutation "
                    + Arrays.toString(permutation.shape()) + " and routingWeights " + Arrays.toString(routingWeights.shape())
                    + " disagree: one permutation entry per row and at most T·k rows");
        }
        Tensor y2 = ySorted.detach(), w2 = routingWeights.detach(), perm = permutation.detach();
        long bytes = FusedOp.bytes(ySorted, routingWeights, permutation) + 4L * routingWeights.size(0) * ySorted.size(1);
        return COMBINE_OP.run(ySorted.backend(), 2L * ySorted.numel(), bytes,
                kernels -> new FusedOp.Result<>(kernels.combine(y2, w2, perm), null),
                (kernels, none, g) -> {
                    MoeKernels.CombineGrads gr = kernels.combineBackward(g, y2, w2, perm);
                    return new Tensor[] {gr.dy(), gr.dRoutingWeights()};
                }, ySorted, routingWeights);
    }

    /**
     * Checks on x's backend, without reading the sizes to the host, that the group sizes are
     * non-negative and sum to the rows of {@code x} (R, in): each size against [0, R] and the sum
     * minus R against [0, 1), with {@link Backend#checkIndex}, which a device backend may raise
     * at its next synchronisation under a message naming grouped_matmul. Where it raises at once
     * (the heap backends) the error is {@link #groupSizesOnHost}'s, naming the sizes: reading
     * them is the error path's cost, not a step's. The float32 sum is exact below 2²⁴ rows; more
     * rows are checked on the host.
     */
    public static void checkGroupSizes(Tensor x, Tensor groupSizes) {
        Backend be = x.backend();
        int rows = x.size(0);
        if (rows >= Creation.EXACT_FLOAT_COUNT) {
            groupSizesOnHost(x, groupSizes);
            return;
        }
        try {
            be.checkIndex(GROUPED_MATMUL + ": group size (of " + rows + " rows)", groupSizes.storage(), groupSizes.layout(),
                    rows + 1L, OptionalLong.empty());
            Tensor surplus = groupSizes.to(DType.FLOAT32).sum().sub(rows).to(DType.INT64); // 0 when they sum to R
            be.checkIndex(GROUPED_MATMUL + ": group sizes' sum minus the " + rows + " rows", surplus.storage(),
                    surplus.layout(), 1, OptionalLong.empty());
        } catch (IndexOutOfBoundsException e) {
            groupSizesOnHost(x, groupSizes); // throws, naming the sizes
            throw e;
        }
    }

    /**
     * The group sizes as a host array, for kernels that loop over groups on the host: checked to
     * be non-negative and to sum to the rows of {@code x} (R, in), else an error naming grouped_matmul.
     */
    public static long[] groupSizesOnHost(Tensor x, Tensor groupSizes) {
        long[] sizes = groupSizes.toLongArray();
        long sum = 0;
        for (long s : sizes) {
            if (s < 0) throw new IllegalArgumentException(GROUPED_MATMUL + ": negative group size in " + Arrays.toString(sizes));
            sum += s;
        }
        if (sum != x.size(0)) {
            throw new IllegalArgumentException(GROUPED_MATMUL + ": group sizes " + Arrays.toString(sizes) + " sum to " + sum
                    + " but x has " + x.size(0) + " rows");
        }
        return sizes;
    }

    private static void floats(String op, String what, Tensor t, int rank) {
        Checks.float32(op, t);
        Checks.rank(op, what, t, rank);
    }

    private static void indexVector(String op, String what, Tensor t) {
        Checks.integer(op, what, t);
        Checks.rank(op, what, t, 1);
    }

    /** The top-k of a router: 1 ≤ k ≤ E, else an error naming {@code op} and both numbers. */
    public static void checkTopK(String op, int k, int numExperts) {
        if (k < 1 || k > numExperts) {
            throw new IllegalArgumentException(op + ": top-k must be in [1, " + numExperts + "] for " + numExperts
                    + " experts, got " + k);
        }
    }

    /** Switch's capacity: ceil(factor · k · T / E) slots per expert; factor must be > 0. */
    public static int capacity(double capacityFactor, int k, int tokens, int numExperts) {
        if (!(capacityFactor > 0) || Double.isInfinite(capacityFactor)) {
            throw new IllegalArgumentException("moe capacity: capacity factor must be a positive finite number, got " + capacityFactor);
        }
        return (int) Math.max(1, Math.ceil(capacityFactor * k * tokens / numExperts));
    }
}
