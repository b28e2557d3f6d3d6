package dev.symbiont.core.fused.moe;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

import java.util.List;

/**
 * The mixture-of-experts family's contract: moving token slots to their experts and back, and
 * the grouped expert GEMM and the experts' SwiGLU gate in between. Semantics and argument checks are {@link Moe}'s; inputs
 * carry no autograd history and may have any strides. {@link ReferenceMoe} is the reference,
 * composed from primitives with a loop over experts.
 *
 * <p>Vocabulary: T tokens each routed to k experts make T·k <em>slots</em>; slot s = t·k + i is
 * token t's i-th choice. {@link #permute} sorts the slots by expert (stably, so each expert sees
 * its slots in token order) and keeps at most {@code capacity} of them per expert; the R kept
 * slots become the sorted rows every other op works on.
 */
public interface MoeKernels {

    Family<MoeKernels> FAMILY = new Family<>("moe", MoeKernels.class, new ReferenceMoe());

    /** A capacity that keeps every slot (MegaBlocks' dropless dispatch). */
    int DROPLESS = Integer.MAX_VALUE;

    /**
     * The token rows sorted by expert.
     *
     * @param x          (T, d) float32
     * @param expertIds  (T, k) int32 or int64, each in [0, numExperts); ids out of range throw
     *                   {@link IndexOutOfBoundsException} naming the op and the id
     * @param numExperts E ≥ 1
     * @param capacity   the most slots an expert keeps (the first in slot order), ≥ 1, or {@link #DROPLESS}
     */
    Permuted permute(Tensor x, Tensor expertIds, int numExperts, int capacity);

    /** Gradient of {@link #permute}'s rows: (R, d) scattered back and summed per token into (tokens, d). */
    Tensor permuteBackward(Tensor gradRows, Tensor permutation, int tokens, int k);

    /**
     * Rows {@code [offset_e, offset_e + size_e)} of {@code x} times {@code weights.get(e)}, for
     * each expert e in order: x (R, in) float32, weights E tensors (in, out) float32 of any
     * strides (each expert's own parameter, or views of one stacked tensor), groupSizes (E) int
     * summing to R (else {@link IllegalArgumentException} naming grouped_matmul and the sizes; a
     * kernel that keeps the sizes on the device checks them with {@link Moe#checkGroupSizes},
     * whose error may come at the next synchronisation); result (R, out).
     */
    Tensor groupedMatmul(Tensor x, List<Tensor> weights, Tensor groupSizes);

    /**
     * Gradients of {@link #groupedMatmul}: dx (R, in) = g_e·W_eᵀ per group, and one dW_e (in, out)
     * = x_eᵀ·g_e per expert (zeros for an empty group). A kernel may give dW_e the strides of W_e
     * (a transposed weight gets a transposed gradient), so it reaches a Linear's (out, in) weight without a copy.
     */
    GroupedGrads groupedMatmulBackward(Tensor gradOut, Tensor x, List<Tensor> weights, Tensor groupSizes);

    /**
     * The weighted sum back in token order: out[t] = Σ_i w[t, i] · y[row of slot t·k + i], a
     * slot that was dropped contributing nothing. y (R, d) float32 sorted rows, routingWeights
     * (T, k) float32, permutation (R) int64 slot of each row; result (T, d).
     */
    Tensor combine(Tensor ySorted, Tensor routingWeights, Tensor permutation);

    /**
     * Gradients of {@link #combine}: dy (R, d) = w[slot]·g[token], and the routing weights'
     * dw (T, k) = ⟨g[t], y[row of slot t·k + i]⟩ (0 for a dropped slot) — the router learns through it.
     */
    CombineGrads combineBackward(Tensor gradOut, Tensor ySorted, Tensor routingWeights, Tensor permutation);

    /**
     * SwiGLU's gate between an expert's grouped GEMMs (Shazeer 2020, eq. 6): silu(gate) ⊙ up,
     * gate and up (R, h) float32 of one shape, any strides; result (R, h), contiguous.
     */
    Tensor swiglu(Tensor gate, Tensor up);

    /**
     * Gradients of {@link #swiglu} for gradOut (R, h): dGate = g ⊙ up ⊙ silu′(gate) with
     * silu′(x) = s·(1 + x(1 − s)), s = sigmoid(x), and dUp = g ⊙ silu(gate).
     */
    SwigluGrads swigluBackward(Tensor gradOut, Tensor gate, Tensor up);

    /**
     * An expert's gate and up projections and SwiGLU between them, over groups that share their
     * rows: h = silu(x_e·gate_e) ⊙ (x_e·up_e) for each group e (Mixtral's w1 and w3), operands as
     * {@link #groupedMatmul}'s, gate and up of one shape (in, h). {@code keep}: also return the two
     * projections (R, h), which backward needs; without it a kernel need never write them. This
     * default composes the two grouped GEMMs and {@link #swiglu}.
     */
    default GatedRows groupedSwiglu(Tensor x, List<Tensor> gate, List<Tensor> up, Tensor groupSizes, boolean keep) {
        Tensor a = groupedMatmul(x, gate, groupSizes), b = groupedMatmul(x, up, groupSizes);
        return new GatedRows(swiglu(a, b), keep ? a : null, keep ? b : null);
    }

    /**
     * Gradients of {@link #groupedSwiglu} from its output gradient (R, h) and the two projections it
     * kept: dx (R, in) through both projections, and each expert's gate and up weight gradients
     * (strides as {@link #groupedMatmulBackward} gives them). This default composes
     * {@link #swigluBackward} and two {@link #groupedMatmulBackward}s.
     */
    default GatedGrads groupedSwigluBackward(Tensor gradOut, Tensor x, List<Tensor> gate, List<Tensor> up, Tensor groupSizes,
                                             Tensor gateOut, Tensor upOut) {
        SwigluGrads s = swigluBackward(gradOut, gateOut, upOut);
        GroupedGrads g = groupedMatmulBackward(s.dGate(), x, gate, groupSizes);
        GroupedGrads u = groupedMatmulBackward(s.dUp(), x, up, groupSizes);
        return new GatedGrads(g.dx().add(u.dx()), g.dWeights(), u.dWeights());
    }

    /**
     * The top-k router (Switch, Fedus et al. 2022, eq. 1; Mixtral): logits h = x·Wgᵀ (T, E), p =
     * softmax(h) in float32, each token's k largest p (ties to the lower expert, as a stable
     * {@code topk}) and their weights — renormalised to sum to 1, or p as is — and logsumexp(h)
     * (T), which the z-loss squares. x (T, d) and gateWeight (E, d) float32. This default
     * composes matmul, softmax, topk and the reductions.
     */
    default Routed route(Tensor x, Tensor gateWeight, int k, boolean renormalize) {
        Tensor logits = x.matmul(gateWeight.t());
        Tensor max = logits.amax(new int[] {1}, true);
        Tensor lse = logits.sub(max).exp().sum(1, true).log().add(max).reshape(x.size(0));
        Tensor probs = logits.softmax(-1);
        var top = probs.topk(k, 1, true);
        Tensor weights = renormalize ? top.values().div(top.values().sum(1, true)) : top.values();
        return new Routed(logits, probs, top.indices(), weights, lse);
    }

    /**
     * Gradients of {@link #route} for x and gateWeight from the gradients of its four outputs (any
     * may be null: that output fed nothing): through the weights (and their renormalisation) and
     * the probabilities into softmax, plus the logsumexp's p ⊙ dlse and the logits' own, then
     * dx = dh·Wg and dWg = dhᵀ·x. This default composes tensor ops.
     */
    default RouteGrads routeBackward(Tensor dLogits, Tensor dProbs, Tensor dWeights, Tensor dLogsumexp,
                                     Tensor x, Tensor gateWeight, Routed routed, boolean renormalize) {
        Tensor p = routed.probs();
        Tensor dp = dProbs != null ? dProbs : Tensor.zerosLike(p);
        if (dWeights != null) {
            Tensor dv = dWeights;
            if (renormalize) { // w = v / Σv: dv = (dw − Σ dw ⊙ w) / Σv
                Tensor v = p.gather(1, routed.expertIds()), sum = v.sum(1, true);
                dv = dWeights.sub(dWeights.mul(v.div(sum)).sum(1, true)).div(sum);
            }
            dp = dp.scatterAdd(1, routed.expertIds(), dv);
        }
        Tensor dh = p.mul(dp.sub(p.mul(dp).sum(1, true)));
        if (dLogsumexp != null) dh = dh.add(p.mul(dLogsumexp.reshape(p.size(0), 1)));
        if (dLogits != null) dh = dh.add(dLogits);
        return new RouteGrads(dh.matmul(gateWeight), dh.t().matmul(x));
    }

    /**
     * {@link #permute}'s result.
     *
     * @param rows        (R, d) the kept slots' token rows, grouped by expert, each group in slot order
     * @param groupSizes  (E) int64, rows per expert; R = Σ groupSizes = T·k when nothing is dropped
     * @param offsets     (E) int64, the first row of each group (the exclusive prefix sum of the sizes)
     * @param permutation (R) int64, the slot t·k + i each row came from
     */
    record Permuted(Tensor rows, Tensor groupSizes, Tensor offsets, Tensor permutation) {
        /** The number of kept rows R. */
        public int keptRows() { return rows.size(0); }
    }

    /** Gradients of the grouped GEMM's input (R, in) and of each expert's weight (in, out). */
    record GroupedGrads(Tensor dx, List<Tensor> dWeights) {}

    /** {@link #groupedSwiglu}'s output (R, h), and its two projections (R, h) when kept (else null). */
    record GatedRows(Tensor output, Tensor gate, Tensor up) {}

    /** Gradients of {@link #groupedSwiglu}'s rows (R, in) and of each expert's gate and up weights (in, h). */
    record GatedGrads(Tensor dx, List<Tensor> dGate, List<Tensor> dUp) {}

    /** Gradients of swiglu's gate (R, h) and up (R, h) inputs. */
    record SwigluGrads(Tensor dGate, Tensor dUp) {}

    /**
     * {@link #route}'s result for T tokens and E experts.
     *
     * @param logits    (T, E) float32, x·Wgᵀ
     * @param probs     (T, E) float32, softmax of the logits
     * @param expertIds (T, k) int64, each token's k experts, most probable first
     * @param weights   (T, k) float32, their routing weights
     * @param logsumexp (T) float32, logsumexp of each token's logits
     */
    record Routed(Tensor logits, Tensor probs, Tensor expertIds, Tensor weights, Tensor logsumexp) {}

    /** Gradients of {@link #route}'s input (T, d) and gate weight (E, d). */
    record RouteGrads(Tensor dx, Tensor dGateWeight) {}

    /** Gradients of combine's sorted rows (R, d) and routing weights (T, k). */
    record CombineGrads(Tensor dy, Tensor dRoutingWeights) {}
}
