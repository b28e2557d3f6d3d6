package dev.symbiont.core.fused.moe;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.ops.Creation;

import java.util.List;

/**
 * Which expert's group each of R sorted rows falls in, made on the backend from the group sizes
 * (cumulative offsets, positions and comparisons) so that the reference's grouped GEMM never
 * reads the sizes on the host: row r is expert e's when offset_e ≤ r &lt; offset_e + size_e.
 *
 * @param masks       (E, R, 1) float32, 1 where row r is in group e
 * @param expertOfRow (1, R, 1) int64, the group of row r: the number of groups ending at or before r
 */
record ExpertGroups(Tensor masks, Tensor expertOfRow) {

    /** The groups of x's (R, in) rows; the sizes (E) are checked on the backend ({@link Moe#checkGroupSizes}). */
    static ExpertGroups of(Tensor x, Tensor groupSizes) {
        int rows = x.size(0), experts = groupSizes.size(0);
        Tensor r = Creation.positions(x.backend(), Moe.GROUPED_MATMUL, rows, DType.FLOAT32).reshape(1, rows);
        Moe.checkGroupSizes(x, groupSizes);
        Tensor sizes = groupSizes.to(DType.FLOAT32);
        Tensor ends = sizes.cumsum(0).reshape(experts, 1), starts = ends.sub(sizes.reshape(experts, 1));
        Tensor masks = r.ge(starts).mul(r.lt(ends)).reshape(experts, rows, 1);
        Tensor expertOfRow = r.reshape(rows, 1).ge(ends.reshape(1, experts)).sum(1, false).to(DType.INT64);
        return new ExpertGroups(masks, expertOfRow.reshape(1, rows, 1));
    }

    /** Rows of {@code t} (R, n) outside group e read as zeros (picked with where, so no NaN of another group leaks in). */
    Tensor rowsOf(int e, Tensor t) {
        return masks.select(0, e).where(t, Creation.full(t.backend(), 0, DType.FLOAT32));
    }

    /** Row r of its own group's tensor: {@code perExpert} E tensors (R, n), one per expert; result (R, n). */
    Tensor pick(List<Tensor> perExpert) {
        int rows = perExpert.get(0).size(0), n = perExpert.get(0).size(1);
        return Tensor.stack(perExpert, 0).gather(0, expertOfRow.expand(1, rows, n)).reshape(rows, n);
    }
}
