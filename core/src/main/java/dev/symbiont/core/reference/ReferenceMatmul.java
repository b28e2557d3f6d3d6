package dev.symbiont.core.reference;

import dev.symbiont.core.Layout;

import java.util.Arrays;

/**
 * Batched matrix product over strided float32 operands, one dot product at a time in double:
 * out[b, i, j] = Σ_p a[b, i, p] · b[b, p, j]. Transposes and broadcast batch dims (stride 0)
 * are just strides here, so no operand is ever copied.
 */
final class ReferenceMatmul {
    private ReferenceMatmul() {}

    /** a: (batch..., m, k), b: (batch..., k, n) with identical batch dims; returns contiguous (batch..., m, n). */
    static float[] matmul(float[] a, Layout aLayout, float[] b, Layout bLayout) {
        int rank = aLayout.rank();
        int m = aLayout.size(rank - 2), k = aLayout.size(rank - 1), n = bLayout.size(rank - 1);
        int aRow = aLayout.stride(rank - 2), aCol = aLayout.stride(rank - 1);
        int bRow = bLayout.stride(rank - 2), bCol = bLayout.stride(rank - 1);

        StridedWalker aBatches = new StridedWalker(batchLayout(aLayout));
        StridedWalker bBatches = new StridedWalker(batchLayout(bLayout));
        int batches = Layout.numel(Arrays.copyOf(aLayout.shape(), rank - 2));
        float[] out = new float[Math.multiplyExact(batches, Math.multiplyExact(m, n))];
        int o = 0;
        for (int batch = 0; batch < batches; batch++) {
            int aBase = aBatches.next(), bBase = bBatches.next();
            for (int i = 0; i < m; i++) {
                int aRowBase = aBase + i * aRow;
                for (int j = 0; j < n; j++) {
                    int bColBase = bBase + j * bCol;
                    double acc = 0;
                    for (int p = 0; p < k; p++) acc += (double) a[aRowBase + p * aCol] * b[bColBase + p * bRow];
                    out[o++] = (float) acc;
                }
            }
        }
        return out;
    }

    /** The batch dims of a matrix layout, starting at its offset: one step per matrix. */
    private static Layout batchLayout(Layout layout) {
        int r = layout.rank() - 2;
        return new Layout(Arrays.copyOf(layout.shape(), r), Arrays.copyOf(layout.strides(), r), layout.offset());
    }
}
