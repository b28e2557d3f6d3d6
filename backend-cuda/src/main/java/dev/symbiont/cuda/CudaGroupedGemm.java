package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels.GatedRows;
import dev.symbiont.core.fused.moe.MoeKernels.GroupedGrads;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The moe family's grouped expert GEMM on {@code moe.cu}'s {@code grouped_matmul_*} kernels: the
 * group sizes stay on the device, where each block finds its (expert, row tile) from them, so no
 * step reads them to the host. The experts' weights go to the kernel by value as a table of
 * addresses and strides ({@code ExpertMatrices}, {@value #TABLE} experts a launch; more experts take
 * more launches over disjoint rows), so per-expert parameters of any layout are read in place.
 */
final class CudaGroupedGemm {
    /** Rows and columns of a block's tile, and experts per launch (the kernels' GG_TILE and MAX_TABLE_EXPERTS). */
    static final int TILE = 64, TABLE = 64, THREADS = 256;
    private static final int MAX_GRID = 65_535;
    private static final String GROUP = "moe";

    private final FusedOperands io;

    CudaGroupedGemm(FusedOperands io) { this.io = io; }

    /** Whether the grid takes x's (R, in) rows in row tiles beside the experts' partial tiles; else records the fallback. */
    static boolean fits(String op, Tensor x, int experts) {
        long items = (x.size(0) + TILE - 1L) / TILE + Math.min(experts, TABLE);
        if (items <= MAX_GRID) return true;
        dev.symbiont.core.fused.Fallbacks.record(op, x.size(0) + " rows need more row tiles than the grid's " + MAX_GRID);
        return false;
    }

    /** x (R, in) · W_e (in, out) over each expert's rows; result (R, out). */
    Tensor forward(Tensor x, List<Tensor> weights, Tensor groupSizes) {
        io.backend().enter();
        Moe.checkGroupSizes(x, groupSizes);
        int rows = x.size(0), in = x.size(1), out = weights.get(0).size(1);
        Tensor xs = FusedOperands.dense(x), sizes = sizes(groupSizes), y = io.empty(rows, out);
        rowTiles(y, xs, weights, false, sizes, rows, in, out);
        return y;
    }

    /** dx (R, in) = g_e · W_eᵀ per group; dW_e (in, out) = x_eᵀ · g_e, in W_e's transposed layout when W_e is a transpose. */
    GroupedGrads backward(Tensor gradOut, Tensor x, List<Tensor> weights, Tensor groupSizes) {
        io.backend().enter();
        Moe.checkGroupSizes(x, groupSizes);
        int rows = x.size(0), in = x.size(1), out = weights.get(0).size(1), experts = weights.size();
        Tensor xs = FusedOperands.dense(x), g = FusedOperands.dense(gradOut), sizes = sizes(groupSizes);
        Tensor dx = io.empty(rows, in);
        rowTiles(dx, g, weights, true, sizes, rows, out, in);
        List<Tensor> dw = new ArrayList<>(experts);
        for (Tensor w : weights) dw.add(transposed(w) ? io.empty(out, in).t() : io.empty(in, out));
        for (int first = 0; first < experts; first += TABLE) {
            int count = Math.min(TABLE, experts - first);
            io.backend().kernels().launch(GROUP, "grouped_matmul_weight_grad_f32",
                    new Dim3(tiles(out), tiles(in), count), Dim3.of(THREADS), 0, KernelArgs.of()
                            .struct(table(dw, first, count, false), 8).pointer(FusedOperands.address(xs))
                            .pointer(FusedOperands.address(g)).pointer(FusedOperands.address(sizes))
                            .i32(first).i64(rows).i32(in).i32(out));
        }
        return new GroupedGrads(dx, dw);
    }

    /**
     * h (R, hidden) = silu(x_e · gate_e) ⊙ (x_e · up_e) over each expert's rows of x (R, in), the
     * two products in registers; with {@code keep} the products (R, hidden) are written too.
     */
    GatedRows swiglu(Tensor x, List<Tensor> gate, List<Tensor> up, Tensor groupSizes, boolean keep) {
        io.backend().enter();
        Moe.checkGroupSizes(x, groupSizes);
        int rows = x.size(0), in = x.size(1), hidden = gate.get(0).size(1);
        Tensor xs = FusedOperands.dense(x), sizes = sizes(groupSizes), h = io.empty(rows, hidden);
        Tensor a = keep ? io.empty(rows, hidden) : null, b = keep ? io.empty(rows, hidden) : null;
        for (int first = 0; first < gate.size(); first += TABLE) {
            int count = Math.min(TABLE, gate.size() - first);
            launchRows("grouped_swiglu_f32", rows, hidden, count, KernelArgs.of().pointer(FusedOperands.address(h))
                    .pointer(FusedOperands.address(a)).pointer(FusedOperands.address(b)).pointer(FusedOperands.address(xs))
                    .struct(table(gate, first, count, false), 8).struct(table(up, first, count, false), 8)
                    .pointer(FusedOperands.address(sizes)).i32(first).i32(count).i64(rows).i32(in).i32(hidden));
        }
        return new GatedRows(h, a, b);
    }

    /** c (R, n) = a (R, kDim) times each row's expert's W (kDim, n), or Wᵀ when {@code transposeW}. */
    private void rowTiles(Tensor c, Tensor a, List<Tensor> weights, boolean transposeW, Tensor sizes, int rows, int kDim, int n) {
        for (int first = 0; first < weights.size(); first += TABLE) {
            int count = Math.min(TABLE, weights.size() - first);
            launchRows("grouped_matmul_f32", rows, n, count, KernelArgs.of().pointer(FusedOperands.address(c))
                    .pointer(FusedOperands.address(a)).struct(table(weights, first, count, transposeW), 8)
                    .pointer(FusedOperands.address(sizes)).i32(first).i32(count).i64(rows).i32(kDim).i32(n));
        }
    }

    /** A row-tile kernel's grid: column tiles of n by the row tiles of R rows plus one partial tile per expert of the launch. */
    private void launchRows(String kernel, int rows, int n, int experts, KernelArgs args) {
        io.backend().kernels().launch(GROUP, kernel, Dim3.of(tiles(n), tiles(rows) + experts), Dim3.of(THREADS), 0, args);
    }

    /** The kernels' {@code ExpertMatrices}: addresses, row strides, column strides of experts [first, first + count). */
    private static byte[] table(List<Tensor> matrices, int first, int count, boolean transpose) {
        ByteBuffer buf = ByteBuffer.allocate(3 * 8 * TABLE).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            Tensor m = matrices.get(first + i);
            buf.putLong(8 * i, CudaBackend.storage(m.storage()).address(m.layout().offset()));
            buf.putLong(8 * (TABLE + i), m.layout().stride(transpose ? 1 : 0));
            buf.putLong(8 * (2 * TABLE + i), m.layout().stride(transpose ? 0 : 1));
        }
        return buf.array();
    }

    /** Whether w (in, out) is the transpose of a contiguous (out, in) matrix, as a Linear's weight seen as (in, out). */
    static boolean transposed(Tensor w) {
        return w.size(0) > 1 && w.size(1) > 1 && w.layout().stride(0) == 1 && w.layout().stride(1) == w.size(0);
    }

    /** The sizes as contiguous int64, as the kernels read them. */
    private static Tensor sizes(Tensor groupSizes) {
        return (groupSizes.dtype() == DType.INT64 ? groupSizes : groupSizes.to(DType.INT64)).contiguous();
    }

    private static int tiles(int n) { return Math.max(1, (n + TILE - 1) / TILE); }
}
