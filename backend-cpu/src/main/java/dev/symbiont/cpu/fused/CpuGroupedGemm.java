package dev.symbiont.cpu.fused;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HeapStorage;
import dev.symbiont.core.fused.moe.MoeKernels.GroupedGrads;
import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.kernels.Parallel;
import dev.symbiont.cpu.kernels.Rows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;

/**
 * The grouped expert GEMM of the moe family on the CPU: each group of rows times its expert's
 * weight, read in place through its strides (one parameter per expert, or views of a stack) —
 * no padding to a capacity, no stacking, no copy of a transposed weight. The weight gradient
 * is written in the weight's own layout: a transposed weight (a Linear's (out, in) weight seen
 * as (in, out)) gets dWᵀ = gᵀ·x computed straight into (out, in) rows, so it reaches the
 * Linear's parameter without a transposing copy.
 */
final class CpuGroupedGemm {
    static final String OP = "grouped_matmul";

    private final CpuTensors io;
    private final Gemm gemm;

    CpuGroupedGemm(CpuTensors io, Gemm gemm) {
        this.io = io;
        this.gemm = gemm;
    }

    /** One expert's (in, out) weight as an array, an offset and two strides. */
    private record Weight(float[] data, int offset, int rowStride, int colStride) {
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
        HeapStorage result = io.newFloats(rows * out);
        float[] c = result.floats();
        long[] offsets = offsets(sizes);
        forEachGroup(sizes, e -> {
            int n = (int) sizes[e], off = (int) offsets[e];
            gemm.sgemm(n, out, in, a.data(), a.start(off), a.stride(), 1,
                    w[e].data, w[e].offset, w[e].rowStride, w[e].colStride, c, off * out, out);
        });
        return Tensor.of(result, rows, out);
    }

    GroupedGrads backward(Tensor gradOut, Tensor x, List<Tensor> weights, long[] sizes) {
        int rows = x.size(0), in = weights.get(0).size(0), out = weights.get(0).size(1), experts = sizes.length;
        Rows a = io.rows(OP, x, rows, in);
        Rows g = io.rows(OP, gradOut, rows, out);
        Weight[] w = weights(weights);
        HeapStorage dx = io.newFloats(rows * in);
        float[] dxs = dx.floats();
        HeapStorage[] dw = new HeapStorage[experts];
        boolean[] transposed = new boolean[experts];
        for (int e = 0; e < experts; e++) {
            dw[e] = io.newFloats(in * out); // zeros: an empty group's gradient
            transposed[e] = w[e].transposedRows(in);
        }
        long[] offsets = offsets(sizes);
        forEachGroup(sizes, e -> {
            int n = (int) sizes[e], off = (int) offsets[e];
            // dx_e = g_e · W_eᵀ: W_eᵀ's (j, p) is W_e's (p, j), read through swapped strides.
            gemm.sgemm(n, in, out, g.data(), g.start(off), g.stride(), 1,
                    w[e].data, w[e].offset, w[e].colStride, w[e].rowStride, dxs, off * in, in);
            if (transposed[e]) {
                // dW_eᵀ = g_eᵀ · x_e, (out, in) rows like the weight's: gᵀ's (j, r) is g's (off + r, j).
                gemm.sgemm(out, in, n, g.data(), g.start(off), 1, g.stride(),
                        a.data(), a.start(off), a.stride(), 1, dw[e].floats(), 0, in);
            } else {
                // dW_e = x_eᵀ · g_e: x_eᵀ's (p, r) is x's (off + r, p).
                gemm.sgemm(in, out, n, a.data(), a.start(off), 1, a.stride(),
                        g.data(), g.start(off), g.stride(), 1, dw[e].floats(), 0, out);
            }
        });
        List<Tensor> grads = new ArrayList<>(experts);
        for (int e = 0; e < experts; e++) {
            grads.add(transposed[e] ? Tensor.of(dw[e], out, in).transpose(0, 1) : Tensor.of(dw[e], in, out));
        }
        return new GroupedGrads(Tensor.of(dx, rows, in), grads);
    }

    private static Weight[] weights(List<Tensor> weights) {
        Weight[] w = new Weight[weights.size()];
        for (int e = 0; e < w.length; e++) w[e] = Weight.of(weights.get(e));
        return w;
    }

    /**
     * Runs {@code body} for every non-empty group as one parallel computation: the groups are
     * work items, largest first, which each of the pool's threads takes one after another; a
     * large group's GEMM forks its tiles into the same pool, so a thread that runs out of groups
     * steals tiles of the others' instead of waiting at a barrier after every expert.
     * Each group writes only its own rows and gradient, so the result does not depend on the order.
     */
    private static void forEachGroup(long[] sizes, IntConsumer body) {
        Integer[] order = IntStream.range(0, sizes.length).filter(e -> sizes[e] > 0).boxed()
                .sorted((x, y) -> Long.compare(sizes[y], sizes[x])).toArray(Integer[]::new);
        if (order.length == 1) {
            body.accept(order[0]);
            return;
        }
        AtomicInteger next = new AtomicInteger();
        Parallel.forRange(Math.min(order.length, CpuThreads.parallelism()), 1, (from, to) -> {
            for (int i = next.getAndIncrement(); i < order.length; i = next.getAndIncrement()) body.accept(order[i]);
        });
    }

    static long[] offsets(long[] sizes) {
        long[] offsets = new long[sizes.length];
        for (int e = 1; e < sizes.length; e++) offsets[e] = offsets[e - 1] + sizes[e - 1];
        return offsets;
    }
}
