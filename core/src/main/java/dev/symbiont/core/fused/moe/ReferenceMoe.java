package dev.symbiont.core.fused.moe;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.ops.Creation;

import java.util.ArrayList;
import java.util.List;

/**
 * The moe family's reference, written with tensor ops so it runs on every backend: the slots
 * are sorted by expert with a stable {@code topk} over all of them, counted with
 * {@code scatter_add}, and moved with {@code index_select}; the grouped GEMM loops over the
 * experts, as Hugging Face's {@code MixtralSparseMoeBlock} does, but multiplies every row by
 * every expert and keeps each row's own product ({@link ExpertGroups}, made on the backend from
 * the group sizes): E times the FLOPs of a grouped kernel, and nothing read on the host. The one
 * host read left is a dropping capacity's kept-row count, which decides the rows' shape.
 *
 * <p>Open: a backend extends it to override single ops ({@link dev.symbiont.core.fused.Family}).
 */
public class ReferenceMoe implements MoeKernels {

    @Override
    public Permuted permute(Tensor x, Tensor expertIds, int numExperts, int capacity) {
        Backend be = x.backend();
        int tokens = x.size(0), k = expertIds.size(1), slots = tokens * k;
        Tensor ids = expertIds.reshape(slots);
        Tensor counts = histogram(ids, numExperts);
        // Ascending topk over all slots is a stable sort: a slot keeps its place among its expert's.
        Tensor order = ids.to(DType.FLOAT32).topk(slots, 0, false).indices();
        Tensor sizes = counts;
        if (capacity < slots) {
            sizes = counts.minimum(Creation.full(be, capacity, DType.FLOAT32));
            // The kept rows' count is the output's shape: the one value the reference reads on the host.
            order = withinCapacity(ids, order, counts, capacity, (int) sizes.sum().item());
        }
        Tensor tokenOfSlot = Creation.positions(be, Moe.PERMUTE, tokens, DType.INT64).unsqueeze(1).expand(tokens, k).reshape(slots);
        Tensor rows = x.indexSelect(0, tokenOfSlot.indexSelect(0, order));
        return new Permuted(rows, sizes.to(DType.INT64), exclusiveCumsum(sizes).to(DType.INT64), order);
    }

    @Override
    public Tensor permuteBackward(Tensor gradRows, Tensor permutation, int tokens, int k) {
        int d = gradRows.size(1);
        return toSlots(Moe.PERMUTE, gradRows, permutation, tokens * k).reshape(tokens, k, d).sum(1, false);
    }

    @Override
    public Tensor groupedMatmul(Tensor x, List<Tensor> weights, Tensor groupSizes) {
        ExpertGroups groups = ExpertGroups.of(x, groupSizes);
        List<Tensor> products = new ArrayList<>(weights.size());
        for (Tensor w : weights) products.add(x.matmul(w));
        return groups.pick(products);
    }

    @Override
    public GroupedGrads groupedMatmulBackward(Tensor gradOut, Tensor x, List<Tensor> weights, Tensor groupSizes) {
        ExpertGroups groups = ExpertGroups.of(x, groupSizes);
        List<Tensor> dx = new ArrayList<>(weights.size()), dw = new ArrayList<>(weights.size());
        for (int e = 0; e < weights.size(); e++) {
            dx.add(gradOut.matmul(weights.get(e).transpose(0, 1)));
            dw.add(groups.rowsOf(e, x).transpose(0, 1).matmul(groups.rowsOf(e, gradOut))); // zeros for an empty group
        }
        return new GroupedGrads(groups.pick(dx), dw);
    }

    @Override
    public Tensor combine(Tensor ySorted, Tensor routingWeights, Tensor permutation) {
        int tokens = routingWeights.size(0), k = routingWeights.size(1), d = ySorted.size(1);
        Tensor slots = toSlots(Moe.COMBINE, ySorted, permutation, tokens * k).reshape(tokens, k, d);
        return slots.mul(routingWeights.unsqueeze(2)).sum(1, false);
    }

    @Override
    public CombineGrads combineBackward(Tensor gradOut, Tensor ySorted, Tensor routingWeights, Tensor permutation) {
        int tokens = routingWeights.size(0), k = routingWeights.size(1), d = ySorted.size(1);
        Tensor perSlot = gradOut.unsqueeze(1).mul(routingWeights.unsqueeze(2)).reshape(tokens * k, d);
        Tensor dy = perSlot.indexSelect(0, permutation);
        Tensor slots = toSlots(Moe.COMBINE, ySorted, permutation, tokens * k).reshape(tokens, k, d);
        return new CombineGrads(dy, slots.mul(gradOut.unsqueeze(1)).sum(2, false));
    }

    @Override
    public Tensor swiglu(Tensor gate, Tensor up) {
        return gate.silu().mul(up);
    }

    @Override
    public SwigluGrads swigluBackward(Tensor gradOut, Tensor gate, Tensor up) {
        Tensor s = gate.sigmoid();
        Tensor siluGrad = s.mul(gate.mul(s.neg().add(1)).add(1)); // s·(1 + x(1 − s))
        return new SwigluGrads(gradOut.mul(up).mul(siluGrad), gradOut.mul(gate.mul(s)));
    }

    @Override
    public String toString() { return "ReferenceMoe"; }

    // ---- pieces ---------------------------------------------------------------------------------

    /** Slots per expert as float32 (E); an id outside [0, E) throws naming the op and the id. */
    private static Tensor histogram(Tensor ids, int numExperts) {
        Backend be = ids.backend();
        try {
            return zeros(be, numExperts).scatterAdd(0, ids, Creation.full(be, 1, DType.FLOAT32, ids.size(0)));
        } catch (IndexOutOfBoundsException e) {
            throw new IndexOutOfBoundsException(Moe.PERMUTE + ": an expert id is outside [0, " + numExperts + "): "
                    + e.getMessage());
        }
    }

    /**
     * The sorted order cut to the first {@code capacity} slots of each expert: a row's rank in its
     * group is its position minus the group's first position, and a second stable sort moves the
     * kept rows (rank &lt; capacity) to the front without reordering them.
     */
    private static Tensor withinCapacity(Tensor ids, Tensor order, Tensor counts, int capacity, int kept) {
        int slots = ids.size(0);
        Tensor firstRow = exclusiveCumsum(counts).gather(0, ids.indexSelect(0, order));
        Tensor rank = Creation.positions(ids.backend(), Moe.PERMUTE, slots, DType.FLOAT32).sub(firstRow);
        Tensor dropped = rank.gt(capacity - 0.5);
        Tensor keptFirst = dropped.topk(slots, 0, false).indices().narrow(0, 0, kept);
        return order.indexSelect(0, keptFirst);
    }

    private static Tensor exclusiveCumsum(Tensor sizes) {
        return sizes.cumsum(0).sub(sizes);
    }

    /** The sorted rows (R, d) put back at their slots of a zero (slots, d) tensor. */
    private static Tensor toSlots(String op, Tensor rows, Tensor permutation, int slots) {
        int r = rows.size(0), d = rows.size(1);
        try {
            return zeros(rows.backend(), slots, d).scatterAdd(0, permutation.unsqueeze(1).expand(r, d), rows);
        } catch (IndexOutOfBoundsException e) {
            throw new IndexOutOfBoundsException(op + ": a permutation entry is outside [0, " + slots + "): " + e.getMessage());
        }
    }

    private static Tensor zeros(Backend be, int... shape) {
        return Creation.full(be, 0, DType.FLOAT32, shape);
    }
}
