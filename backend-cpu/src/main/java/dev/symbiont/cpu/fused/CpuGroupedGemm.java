package dev.symbiont.cpu.fused;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.moe.MoeKernels.GroupedGrads;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmTiles;
import dev.symbiont.cpu.kernels.Rows;

import java.util.ArrayList;
import java.util.List;

/**
 * The grouped expert GEMM of the moe family on the CPU: each group of rows times its expert's
 * weight, read in place through its strides (one parameter per expert, or views of a stack) —
 * no padding to a capacity, no stacking, no copy of a transposed weight. The weight gradient
 * is written in the weight's own layout: a transposed weight (a Linear's (out, in) weight seen
 * as (in, out)) gets dWᵀ = gᵀ·x computed straight into (out, in) rows, so it reaches the
 * Linear's parameter without a transposing copy.
 *
 * <p>On the vector GEMM the whole call is one parallel computation over (expert, row tile,
 * column tile) work items ({@link GemmTiles}) — backward's input and weight gradients of every
 * expert together — taken largest first by the pool's threads, none of which forks or waits on
 * another: a small expert is one item, a large one many. Each item writes its own block of C
 * in the GEMM's fixed summation order, so results do not depend on the schedule. On another
 * GEMM (EJML) each expert's product is one item.
 */
final class CpuGroupedGemm {
    static final String OP = "grouped_matmul";

    private final CpuTensors io;
    private final Gemm gemm;
    private final boolean tiled;

    CpuGroupedGemm(CpuTensors io, Gemm gemm) {
        this(io, gemm, GemmTiles.supports(gemm));
    }

    /** {@code tiled}: tiles as work items (needs the vector GEMM), or one item per expert's GEMM. */
    CpuGroupedGemm(CpuTensors io, Gemm gemm, boolean tiled) {
        if (tiled && !GemmTiles.supports(gemm)) throw new IllegalArgumentException(OP + ": tiles need the vector GEMM, not " + gemm.path());
        this.io = io;
        this.gemm = gemm;
        this.tiled = tiled;
    }

    /** One expert's (in, out) weight as an array, an offset and two strides. */
    record Weight(float[] data, int offset, int rowStride, int colStride) {
        static Weight of(Tensor w) {
            Layout l = w.layout();
            return new Weight(HeapStorage.floats(OP, w.storage(), l), l.offset(), l.stride(0), l.stride(1));
        }

        /** A Linear's contiguous (out, in) weight transposed: element (p, j) at p + j·in. */
        boolean transposedRows(int in) { return rowStride == 1 && colStride == in; }
    }

    Tensor forward(Tensor x, List<Tensor> weights, long[] sizes) {
        int rows = x.size(0), in = weights.get(0).size(0), out = weights.get(0).size(1);
        Rows a = io.rows(OP, x, rows, in);
        Weight[] w = weights(weights);
        HeapStorage result = io.emptyFloats(rows * out); // the groups cover every row
        float[] c = result.floats();
        long[] offsets = offsets(sizes);
        GroupedWork work = new GroupedWork(gemm, tiled);
        for (int e = 0; e < sizes.length; e++) {
            int n = (int) sizes[e], off = (int) offsets[e];
            if (n == 0) continue;
            work.sgemm(n, out, in, a.data(), a.start(off), a.stride(), 1,
                    w[e].data, w[e].offset, w[e].rowStride, w[e].colStride, c, off * out, out);
        }
        work.run();
        return Tensor.of(result, rows, out);
    }

    GroupedGrads backward(Tensor gradOut, Tensor x, List<Tensor> weights, long[] sizes) {
        int rows = x.size(0), in = weights.get(0).size(0), out = weights.get(0).size(1), experts = sizes.length;
        Rows a = io.rows(OP, x, rows, in);
        Rows g = io.rows(OP, gradOut, rows, out);
        Weight[] w = weights(weights);
        HeapStorage dx = io.emptyFloats(rows * in); // the groups cover every row
        float[] dxs = dx.floats();
        HeapStorage[] dw = new HeapStorage[experts];
        long[] offsets = offsets(sizes);
        GroupedWork work = new GroupedWork(gemm, tiled);
        for (int e = 0; e < experts; e++) {
            int n = (int) sizes[e], off = (int) offsets[e];
            // An empty group's gradient is zeros; any other is written whole by its GEMM.
            dw[e] = n == 0 ? io.newFloats(in * out) : io.emptyFloats(in * out);
            if (n == 0) continue;
            // dx_e = g_e · W_eᵀ: W_eᵀ's (j, p) is W_e's (p, j), read through swapped strides.
            work.sgemm(n, in, out, g.data(), g.start(off), g.stride(), 1,
                    w[e].data, w[e].offset, w[e].colStride, w[e].rowStride, dxs, off * in, in);
            weightGradient(work, w[e], g, a, off, n, in, out, dw[e].floats());
        }
        work.run();
        List<Tensor> grads = new ArrayList<>(experts);
        for (int e = 0; e < experts; e++) grads.add(shaped(dw[e], w[e], in, out));
        return new GroupedGrads(Tensor.of(dx, rows, in), grads);
    }

    /**
     * dW_e = x_eᵀ · g_e (group e: rows [off, off + n) of x and g) into the weight's own layout: a
     * transposed weight (a Linear's (out, in) seen as (in, out)) gets dW_eᵀ = g_eᵀ · x_e as (out, in)
     * rows, read through swapped strides (gᵀ's (j, r) is g's (off + r, j)), so it reaches the
     * Linear's parameter without a transposing copy.
     */
    static void weightGradient(GroupedWork work, Weight w, Rows g, Rows a, int off, int n, int in, int out, float[] dw) {
        if (w.transposedRows(in)) {
            work.sgemm(out, in, n, g.data(), g.start(off), 1, g.stride(), a.data(), a.start(off), a.stride(), 1, dw, 0, in);
        } else {
            work.sgemm(in, out, n, a.data(), a.start(off), 1, a.stride(), g.data(), g.start(off), g.stride(), 1, dw, 0, out);
        }
    }

    /** A weight gradient written by {@link #weightGradient} as a tensor of the weight's (in, out) shape and strides. */
    static Tensor shaped(HeapStorage dw, Weight w, int in, int out) {
        return w.transposedRows(in) ? Tensor.of(dw, out, in).transpose(0, 1) : Tensor.of(dw, in, out);
    }

    static Weight[] weights(List<Tensor> weights) {
        Weight[] w = new Weight[weights.size()];
        for (int e = 0; e < w.length; e++) w[e] = Weight.of(weights.get(e));
        return w;
    }

    static long[] offsets(long[] sizes) {
        long[] offsets = new long[sizes.length];
        for (int e = 1; e < sizes.length; e++) offsets[e] = offsets[e - 1] + sizes[e - 1];
        return offsets;
    }
}
