package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BinaryOp;

/**
 * The one builder of triangular and attention masks, made on the backend from primitives
 * ({@code full}, {@code cumsum}, comparisons, {@code where}) so that no host array is uploaded
 * per call. Additive masks use −∞ for a dropped position, as PyTorch's
 * {@code generate_square_subsequent_mask} does, and as the attention family's contract
 * expects: a row whose every key is −∞ attends to nothing and outputs zeros.
 */
public final class Masks {
    /** The additive value of a dropped position. */
    public static final double DROPPED = Double.NEGATIVE_INFINITY;

    private Masks() {}

    /** 0, 1, …, n − 1 as float32 on {@code backend}: a running sum of ones, exact up to 2²⁴. */
    static Tensor positions(Backend backend, int n) {
        return Creation.positions(backend, "mask", n, DType.FLOAT32);
    }

    /**
     * (rows, cols) float32: 1 where the element is kept by {@code tril(diagonal)} (column −
     * row ≤ diagonal) or, with {@code lower} false, by {@code triu(diagonal)} (column − row ≥
     * diagonal); 0 elsewhere.
     */
    public static Tensor triangle(Backend backend, int rows, int cols, int diagonal, boolean lower) {
        Tensor offset = positions(backend, cols).reshape(1, cols).sub(positions(backend, rows).reshape(rows, 1));
        return Elementwise.binaryScalar(lower ? BinaryOp.LE : BinaryOp.GE, offset, diagonal);
    }

    /**
     * The causal mask, bottom-right aligned: query i sees key j iff j ≤ i + keys − queries, so
     * the queries are the last {@code queries} positions (a KV-cache decode step sees every key).
     *
     * @return (queries, keys) float32 on {@code backend}: 0 where visible, −∞ elsewhere
     */
    public static Tensor causal(Backend backend, int queries, int keys) {
        return additive(triangle(backend, queries, keys, keys - queries, true));
    }

    /**
     * An additive key-padding mask from flags.
     *
     * @param keep (batch, seq) of any dtype: non-zero for a real token, 0 for padding
     * @return (batch, 1, 1, seq) float32, broadcastable to scores (batch, heads, sq, seq): 0 or −∞
     */
    public static Tensor keyPadding(Tensor keep) {
        Checks.rank("key_padding_mask", "padding flags (batch, seq)", keep, 2);
        return additive(Elementwise.binaryScalar(BinaryOp.NE, keep.to(DType.FLOAT32), 0)).unsqueeze(1).unsqueeze(1);
    }

    /** 0 where {@code keep} is non-zero, −∞ elsewhere; same shape and backend. */
    public static Tensor additive(Tensor keep) {
        return Elementwise.where(keep, Elementwise.scalarLike(keep, 0), Elementwise.scalarLike(keep, DROPPED));
    }
}
