package dev.symbiont.cpu.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.moe.MoeKernels.GatedGrads;
import dev.symbiont.cpu.fused.CpuGroupedGemm.Weight;
import dev.symbiont.cpu.gemm.DualGemmTiles;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.SwigluKernel;

import java.util.ArrayList;
import java.util.List;

/**
 * The experts' gate and up projections with SwiGLU between them on the vector GEMM. Forward
 * without gradients runs each expert's two products as one ({@link DualGemmTiles}: B panels of
 * w1's columns beside w3's, one pass over the rows) and applies silu(a) ⊙ b to each finished
 * tile while it is in L1, so the projections are never written. (When backward needs them the
 * caller runs two grouped GEMMs and the gate instead: writing both projections and h from each
 * tile measured 25% slower than that, see docs/decisions.md, ADR-088.) Backward takes SwiGLU's
 * gradients in one pass ({@link SwigluKernel#backward}), then runs every expert's products as
 * one parallel computation, the rows' gradient dx = da·W1ᵀ + db·W3ᵀ summed tile by tile into one
 * output (no second dx and no add).
 */
final class CpuGroupedSwiglu {
    static final String OP = "grouped_swiglu";

    private final CpuTensors io;
    private final Gemm gemm;

    CpuGroupedSwiglu(CpuTensors io, Gemm gemm) {
        this.io = io;
        this.gemm = gemm;
    }

    /** h = silu(x_e·W1_e) ⊙ (x_e·W3_e) per group; the projections are not kept. */
    Tensor forward(Tensor x, List<Tensor> gate, List<Tensor> up, long[] sizes, boolean vector) {
        int rows = x.size(0), in = gate.get(0).size(0), out = gate.get(0).size(1);
        Rows a = io.rows(OP, x, rows, in);
        Weight[] w1 = CpuGroupedGemm.weights(gate), w3 = CpuGroupedGemm.weights(up);
        if (in == 0) return Tensor.of(io.newFloats(rows * out), rows, out); // silu(0)·0
        boolean deep = DualGemmTiles.needsPartials(in); // k spans blocks: partial sums need somewhere to live
        HeapStorage h = io.emptyFloats(rows * out); // the groups cover every row
        HeapStorage p1 = deep ? io.emptyFloats(rows * out) : null, p3 = deep ? io.emptyFloats(rows * out) : null;
        float[] hs = h.floats(), c1 = deep ? p1.floats() : null, c3 = deep ? p3.floats() : null;
        long[] offsets = CpuGroupedGemm.offsets(sizes);
        GroupedWork work = new GroupedWork(gemm, true);
        for (int e = 0; e < sizes.length; e++) {
            int n = (int) sizes[e], off = (int) offsets[e];
            if (n == 0) continue;
            DualGemmTiles tiles = DualGemmTiles.of(n, out, in, a.data(), a.start(off), a.stride(), 1,
                    w1[e].data(), w1[e].offset(), w1[e].rowStride(), w1[e].colStride(),
                    w3[e].data(), w3[e].offset(), w3[e].rowStride(), w3[e].colStride(), c1, c3, off * out, out,
                    (tile, row, col, r, c) -> SwigluKernel.tile(vector, tile, DualGemmTiles.TILE_STRIDE, DualGemmTiles.PAIR,
                            r, c, hs, (off + row) * out + col, out));
            for (int t = 0; t < tiles.count(); t++) {
                int tile = t;
                work.add(tiles.work(t), () -> tiles.run(tile));
            }
        }
        work.run();
        if (deep) { // the partial sums' scratch, back to the pool now
            p1.release();
            p3.release();
        }
        return Tensor.of(h, rows, out);
    }

    GatedGrads backward(Tensor gradOut, Tensor x, List<Tensor> gate, List<Tensor> up, long[] sizes, Tensor gateOut, Tensor upOut,
                        boolean vector) {
        int rows = x.size(0), in = gate.get(0).size(0), out = gate.get(0).size(1), experts = sizes.length;
        Tensor g = gradOut.contiguous(), ga = gateOut.contiguous(), gu = upOut.contiguous();
        HeapStorage da = io.emptyFloats(rows * out), db = io.emptyFloats(rows * out);
        SwigluKernel.backward(vector, floats(g), g.layout().offset(), floats(ga), ga.layout().offset(), floats(gu),
                gu.layout().offset(), da.floats(), db.floats(), rows * out);
        float[] das = da.floats(), dbs = db.floats();
        Rows dGate = new Rows(das, 0, out), dUp = new Rows(dbs, 0, out);
        Rows a = io.rows(OP, x, rows, in);
        Weight[] w1 = CpuGroupedGemm.weights(gate), w3 = CpuGroupedGemm.weights(up);
        HeapStorage dx = io.emptyFloats(rows * in); // the groups cover every row
        HeapStorage[] dw1 = new HeapStorage[experts], dw3 = new HeapStorage[experts];
        long[] offsets = CpuGroupedGemm.offsets(sizes);
        GroupedWork work = new GroupedWork(gemm, true);
        for (int e = 0; e < experts; e++) {
            int n = (int) sizes[e], off = (int) offsets[e];
            // An empty group's gradients are zeros; any other is written whole by its GEMMs.
            dw1[e] = n == 0 ? io.newFloats(in * out) : io.emptyFloats(in * out);
            dw3[e] = n == 0 ? io.newFloats(in * out) : io.emptyFloats(in * out);
            if (n == 0) continue;
            // dx_e = da_e · W1_eᵀ + db_e · W3_eᵀ: Wᵀ's (j, p) is W's (p, j), read through swapped strides.
            work.sgemmSum(n, in, out, das, off * out, out, 1, w1[e].data(), w1[e].offset(), w1[e].colStride(), w1[e].rowStride(),
                    dbs, off * out, out, 1, w3[e].data(), w3[e].offset(), w3[e].colStride(), w3[e].rowStride(), dx.floats(), off * in, in);
            CpuGroupedGemm.weightGradient(work, w1[e], dGate, a, off, n, in, out, dw1[e].floats());
            CpuGroupedGemm.weightGradient(work, w3[e], dUp, a, off, n, in, out, dw3[e].floats());
        }
        work.run();
        List<Tensor> g1 = new ArrayList<>(experts), g3 = new ArrayList<>(experts);
        for (int e = 0; e < experts; e++) {
            g1.add(CpuGroupedGemm.shaped(dw1[e], w1[e], in, out));
            g3.add(CpuGroupedGemm.shaped(dw3[e], w3[e], in, out));
        }
        return new GatedGrads(Tensor.of(dx, rows, in), g1, g3);
    }

    private static float[] floats(Tensor t) {
        return HeapStorage.floats(OP, t.storage(), t.layout());
    }
}
