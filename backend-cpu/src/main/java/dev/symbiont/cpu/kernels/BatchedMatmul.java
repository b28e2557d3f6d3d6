package dev.symbiont.cpu.kernels;

import dev.symbiont.core.Layout;
import dev.symbiont.cpu.gemm.Gemm;

import java.util.Arrays;

/**
 * Batched matmul over strided layouts through a {@link Gemm}: a is (batch..., m, k), b is
 * (batch..., k, n), the batch dims already broadcast (stride 0 where shared). Each operand's
 * last two strides go to the GEMM as row and column strides, so transposed operands are never
 * copied.
 *
 * <p>Batch dims that step uniformly through all three operands merge into one; the innermost
 * merged dim becomes one {@link Gemm#sgemmBatched} call (which spreads small problems over the
 * pool), and any outer dims that cannot merge (e.g. a (B, 1) weight broadcast to (B, H)) loop
 * around it.
 */
public final class BatchedMatmul {
    private BatchedMatmul() {}

    /** Writes the contiguous (batch..., m, n) product into {@code out}, which holds exactly that many elements. */
    public static void matmul(Gemm gemm, float[] a, Layout aLayout, float[] b, Layout bLayout, float[] out) {
        int rank = aLayout.rank();
        int m = aLayout.size(rank - 2), k = aLayout.size(rank - 1), n = bLayout.size(rank - 1);
        int aRs = aLayout.stride(rank - 2), aCs = aLayout.stride(rank - 1);
        int bRs = bLayout.stride(rank - 2), bCs = bLayout.stride(rank - 1);
        if (out.length == 0) return;

        // batch dims of size > 1, as (size, a stride, b stride, c stride), outermost first
        int dims = rank - 2;
        int[] size = new int[dims], as = new int[dims], bs = new int[dims], cs = new int[dims];
        int count = 0, cStride = m * n;
        for (int d = dims - 1; d >= 0; d--) {
            int s = aLayout.size(d);
            if (s != 1) {
                size[count] = s;
                as[count] = aLayout.stride(d);
                bs[count] = bLayout.stride(d);
                cs[count++] = cStride;
            }
            cStride *= s;
        }
        // reverse to outermost-first, merging a dim into the one inside it when all three step uniformly
        int[][] merged = merge(size, as, bs, cs, count);
        int batchDims = merged[0].length;
        if (batchDims == 0) {
            gemm.sgemm(m, n, k, a, aLayout.offset(), aRs, aCs, b, bLayout.offset(), bRs, bCs, out, 0, n);
            return;
        }
        int last = batchDims - 1;
        int[] outerShape = Arrays.copyOf(merged[0], last);
        int outer = Layout.numel(outerShape);
        int[] index = new int[last];
        for (int o = 0; o < outer; o++) {
            int aOff = aLayout.offset(), bOff = bLayout.offset(), cOff = 0;
            for (int d = 0; d < last; d++) {
                aOff += index[d] * merged[1][d];
                bOff += index[d] * merged[2][d];
                cOff += index[d] * merged[3][d];
            }
            gemm.sgemmBatched(merged[0][last], m, n, k,
                    a, aOff, merged[1][last], aRs, aCs,
                    b, bOff, merged[2][last], bRs, bCs,
                    out, cOff, merged[3][last], n);
            for (int d = last - 1; d >= 0 && ++index[d] == outerShape[d]; d--) index[d] = 0;
        }
    }

    /**
     * Takes dims innermost-first and returns {sizes, a strides, b strides, c strides} outermost-first,
     * with each dim folded into the next inner one when d's stride = inner stride · inner size for
     * every operand.
     */
    private static int[][] merge(int[] size, int[] as, int[] bs, int[] cs, int count) {
        int[] ms = new int[count], ma = new int[count], mb = new int[count], mc = new int[count];
        int out = 0;
        for (int i = 0; i < count; i++) {
            if (out > 0) {
                int j = out - 1;
                long s = ms[j];
                if (as[i] == ma[j] * s && bs[i] == mb[j] * s && cs[i] == mc[j] * s) {
                    ms[j] = Math.multiplyExact(ms[j], size[i]);
                    continue;
                }
            }
            ms[out] = size[i];
            ma[out] = as[i];
            mb[out] = bs[i];
            mc[out++] = cs[i];
        }
        int[][] r = new int[4][out];
        for (int i = 0; i < out; i++) {
            r[0][i] = ms[out - 1 - i];
            r[1][i] = ma[out - 1 - i];
            r[2][i] = mb[out - 1 - i];
            r[3][i] = mc[out - 1 - i];
        }
        return r;
    }
}
