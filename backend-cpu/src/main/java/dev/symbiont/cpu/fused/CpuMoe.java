package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.HeapStorage;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.kernels.Parallel;
import dev.symbiont.cpu.kernels.Rows;

/**
 * The moe family on the CPU. permute is a counting sort (one pass to count the slots per
 * expert, one to place them, one parallel copy of the rows); combine and the backward passes
 * run once over the tokens through the inverse permutation, so no two threads write one row
 * and the sums are deterministic. The grouped GEMM calls the backend's {@link Gemm} on each
 * group's rows in place — no padding to a capacity, no copy of a transposed weight — across
 * experts in parallel when the groups are small, and across each GEMM's tiles when they are not.
 */
public final class CpuMoe implements MoeKernels {
    private static final String PERMUTE = "moe_permute", GROUPED = "grouped_matmul", COMBINE = "moe_combine";
    /** Multiply-adds per expert GEMM below which experts run in parallel (the vector GEMM keeps such a product on one thread). */
    private static final long SMALL_GEMM = 144L * 144 * 144;

    private final Backend backend;
    private final CpuTensors io;
    private final Gemm gemm;

    public CpuMoe(Backend backend, Gemm gemm) {
        this.backend = backend;
        this.io = new CpuTensors(backend);
        this.gemm = gemm;
    }

    // ---- permute ---------------------------------------------------------------------------------

    @Override
    public Permuted permute(Tensor x, Tensor expertIds, int numExperts, int capacity) {
        int tokens = x.size(0), d = x.size(1), k = expertIds.size(1), slots = tokens * k;
        long[] ids = expertIds.toLongArray();
        long[] sizes = new long[numExperts], offsets = new long[numExperts];
        for (int s = 0; s < slots; s++) {
            long e = ids[s];
            if (e < 0 || e >= numExperts) {
                throw new IndexOutOfBoundsException(PERMUTE + ": expert id " + e + " of token " + s / k + " (choice " + s % k
                        + ") is outside [0, " + numExperts + ")");
            }
            sizes[(int) e]++;
        }
        int rows = 0;
        for (int e = 0; e < numExperts; e++) {
            sizes[e] = Math.min(sizes[e], capacity);
            offsets[e] = rows;
            rows += (int) sizes[e];
        }
        // Stable placement: each expert's slots in slot order, the first `capacity` of them kept.
        long[] permutation = new long[rows];
        long[] next = offsets.clone();
        for (int s = 0; s < slots; s++) {
            int e = (int) ids[s];
            if (next[e] < offsets[e] + sizes[e]) permutation[(int) next[e]++] = s;
        }
        Rows src = io.rows(PERMUTE, x, tokens, d);
        HeapStorage out = io.newFloats(rows * d);
        float[] o = out.floats();
        Parallel.forRange(rows, Parallel.rowGrain(d), (from, to) -> {
            for (int r = from; r < to; r++) System.arraycopy(src.data(), src.start((int) (permutation[r] / k)), o, r * d, d);
        });
        return new Permuted(Tensor.of(out, rows, d), longsTensor(sizes), longsTensor(offsets),
                Tensor.of(wrapLongs(permutation), rows));
    }

    @Override
    public Tensor permuteBackward(Tensor gradRows, Tensor permutation, int tokens, int k) {
        return sumPerToken(PERMUTE, gradRows, null, permutation, tokens, k);
    }

    // ---- grouped GEMM ----------------------------------------------------------------------------

    @Override
    public Tensor groupedMatmul(Tensor x, Tensor weights, Tensor groupSizes) {
        long[] sizes = Moe.groupSizesOnHost(x, groupSizes);
        int rows = x.size(0), in = weights.size(1), outCols = weights.size(2);
        Rows a = io.rows(GROUPED, x, rows, in);
        Layout wl = weights.layout();
        float[] w = HeapStorage.floats(GROUPED, weights.storage(), wl);
        HeapStorage out = io.newFloats(rows * outCols);
        float[] c = out.floats();
        long[] offsets = offsets(sizes);
        forEachGroup(sizes, (long) in * outCols, e -> {
            int n = (int) sizes[e], off = (int) offsets[e];
            gemm.sgemm(n, outCols, in, a.data(), a.start(off), a.stride(), 1,
                    w, wl.offset() + e * wl.stride(0), wl.stride(1), wl.stride(2), c, off * outCols, outCols);
        });
        return Tensor.of(out, rows, outCols);
    }

    @Override
    public GroupedGrads groupedMatmulBackward(Tensor gradOut, Tensor x, Tensor weights, Tensor groupSizes) {
        long[] sizes = Moe.groupSizesOnHost(x, groupSizes);
        int rows = x.size(0), in = weights.size(1), outCols = weights.size(2), experts = weights.size(0);
        Rows a = io.rows(GROUPED, x, rows, in);
        Rows g = io.rows(GROUPED, gradOut, rows, outCols);
        Layout wl = weights.layout();
        float[] w = HeapStorage.floats(GROUPED, weights.storage(), wl);
        HeapStorage dx = io.newFloats(rows * in), dw = io.newFloats(experts * in * outCols);
        float[] dxs = dx.floats(), dws = dw.floats();
        long[] offsets = offsets(sizes);
        forEachGroup(sizes, (long) in * outCols, e -> {
            int n = (int) sizes[e], off = (int) offsets[e], we = wl.offset() + e * wl.stride(0);
            // dx_e = g_e · W_eᵀ: W_eᵀ's (j, p) is W_e's (p, j), read through swapped strides.
            gemm.sgemm(n, in, outCols, g.data(), g.start(off), g.stride(), 1,
                    w, we, wl.stride(2), wl.stride(1), dxs, off * in, in);
            // dW_e = x_eᵀ · g_e: x_eᵀ's (p, r) is x's (off + r, p).
            gemm.sgemm(in, outCols, n, a.data(), a.start(off), 1, a.stride(),
                    g.data(), g.start(off), g.stride(), 1, dws, e * in * outCols, outCols);
        });
        return new GroupedGrads(Tensor.of(dx, rows, in), Tensor.of(dw, experts, in, outCols));
    }

    /** Runs {@code body} for every non-empty group: in parallel across groups when each GEMM is small. */
    private static void forEachGroup(long[] sizes, long perRow, java.util.function.IntConsumer body) {
        int experts = sizes.length;
        long biggest = 0;
        for (long s : sizes) biggest = Math.max(biggest, s * perRow);
        if (biggest < SMALL_GEMM) {
            Parallel.forRange(experts, 1, (from, to) -> {
                for (int e = from; e < to; e++) if (sizes[e] > 0) body.accept(e);
            });
        } else {
            for (int e = 0; e < experts; e++) if (sizes[e] > 0) body.accept(e); // each GEMM parallel over its tiles
        }
    }

    // ---- combine ---------------------------------------------------------------------------------

    @Override
    public Tensor combine(Tensor ySorted, Tensor routingWeights, Tensor permutation) {
        return sumPerToken(COMBINE, ySorted, io.copyOf(routingWeights), permutation, routingWeights.size(0), routingWeights.size(1));
    }

    /** out[t] = Σ_i w[t·k + i] · rows[row of slot t·k + i] over the kept slots, one pass over the tokens (w null: 1). */
    private Tensor sumPerToken(String op, Tensor rows, float[] w, Tensor permutation, int tokens, int k) {
        int d = rows.size(1);
        int[] rowOfSlot = inverse(op, permutation, tokens * k);
        Rows y = io.rows(op, rows, rows.size(0), d);
        HeapStorage out = io.newFloats(tokens * d);
        float[] o = out.floats();
        Parallel.forRange(tokens, Parallel.rowGrain(d * k), (from, to) -> {
            for (int t = from; t < to; t++) {
                for (int i = 0; i < k; i++) {
                    int r = rowOfSlot[t * k + i];
                    if (r >= 0) axpy(w == null ? 1f : w[t * k + i], y.data(), y.start(r), o, t * d, d);
                }
            }
        });
        return Tensor.of(out, tokens, d);
    }

    @Override
    public CombineGrads combineBackward(Tensor gradOut, Tensor ySorted, Tensor routingWeights, Tensor permutation) {
        int tokens = routingWeights.size(0), k = routingWeights.size(1), d = ySorted.size(1), rows = ySorted.size(0);
        int[] rowOfSlot = inverse(COMBINE, permutation, tokens * k);
        Rows y = io.rows(COMBINE, ySorted, rows, d);
        Rows g = io.rows(COMBINE, gradOut, tokens, d);
        float[] w = io.copyOf(routingWeights);
        HeapStorage dy = io.newFloats(rows * d), dw = io.newFloats(tokens * k);
        float[] dys = dy.floats(), dws = dw.floats();
        Parallel.forRange(tokens, Parallel.rowGrain(2 * d * k), (from, to) -> {
            for (int t = from; t < to; t++) {
                for (int i = 0; i < k; i++) {
                    int r = rowOfSlot[t * k + i];
                    if (r < 0) continue; // a dropped slot: no row, and no gradient to its weight
                    axpy(w[t * k + i], g.data(), g.start(t), dys, r * d, d);
                    dws[t * k + i] = dot(g.data(), g.start(t), y.data(), y.start(r), d);
                }
            }
        });
        return new CombineGrads(Tensor.of(dy, rows, d), Tensor.of(dw, tokens, k));
    }

    // ---- pieces ----------------------------------------------------------------------------------

    /** The sorted row of each slot, −1 for a dropped one; entries out of range or repeated throw naming the op. */
    private static int[] inverse(String op, Tensor permutation, int slots) {
        long[] perm = permutation.toLongArray();
        int[] rowOfSlot = new int[slots];
        java.util.Arrays.fill(rowOfSlot, -1);
        for (int r = 0; r < perm.length; r++) {
            long s = perm[r];
            if (s < 0 || s >= slots) {
                throw new IndexOutOfBoundsException(op + ": permutation entry " + s + " at row " + r + " is outside [0, " + slots + ")");
            }
            if (rowOfSlot[(int) s] >= 0) {
                throw new IllegalArgumentException(op + ": slot " + s + " appears twice in the permutation (rows "
                        + rowOfSlot[(int) s] + " and " + r + ")");
            }
            rowOfSlot[(int) s] = r;
        }
        return rowOfSlot;
    }

    private static long[] offsets(long[] sizes) {
        long[] offsets = new long[sizes.length];
        for (int e = 1; e < sizes.length; e++) offsets[e] = offsets[e - 1] + sizes[e - 1];
        return offsets;
    }

    /** dst[dOff..] += a · src[sOff..] over n elements. */
    private static void axpy(float a, float[] src, int sOff, float[] dst, int dOff, int n) {
        for (int j = 0; j < n; j++) dst[dOff + j] += a * src[sOff + j];
    }

    private static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        double acc = 0;
        for (int j = 0; j < n; j++) acc += (double) a[aOff + j] * b[bOff + j];
        return (float) acc;
    }

    private HeapStorage wrapLongs(long[] values) {
        return HeapStorage.of(backend.upload(DType.INT64, values));
    }

    private Tensor longsTensor(long[] values) {
        return Tensor.of(wrapLongs(values), values.length);
    }

    @Override
    public String toString() { return "CpuMoe(" + gemm.path().id() + ")"; }
}
