package dev.symbiont.cpu.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmTiles;
import dev.symbiont.cpu.kernels.Parallel;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.SwigluKernel;

import java.util.List;

/**
 * The moe family on the CPU. The router is {@code CpuMoeRouter}'s one pass per token; permute
 * is a counting sort (one pass to count the slots per expert, one to place them, one parallel
 * copy of the rows); combine and the backward passes
 * run once over the tokens through the inverse permutation, so no two threads write one row
 * and the sums are deterministic. The grouped GEMM is {@code CpuGroupedGemm}'s, the SwiGLU gate
 * {@link SwigluKernel}'s (one pass forward, one backward), and the two projections with the gate
 * between them {@code CpuGroupedSwiglu}'s.
 */
public final class CpuMoe implements MoeKernels {
    private static final String PERMUTE = "moe_permute", COMBINE = "moe_combine", SWIGLU = "moe_swiglu", GROUPED_MATMUL = "grouped_matmul";

    private final Backend backend;
    private final CpuTensors io;
    private final Gemm gemm;
    private final CpuGroupedGemm grouped;
    private final CpuGroupedSwiglu gated;
    private final CpuMoeRouter router;

    public CpuMoe(Backend backend, Gemm gemm) {
        this.backend = backend;
        this.io = new CpuTensors(backend);
        this.gemm = gemm;
        this.grouped = new CpuGroupedGemm(io, gemm);
        this.gated = new CpuGroupedSwiglu(io, gemm);
        this.router = new CpuMoeRouter(io, gemm);
    }

    // ---- route -----------------------------------------------------------------------------------

    @Override
    public Routed route(Tensor x, Tensor gateWeight, int k, boolean renormalize) {
        return router.forward(x, gateWeight, k, renormalize, vector());
    }

    @Override
    public RouteGrads routeBackward(Tensor dLogits, Tensor dProbs, Tensor dWeights, Tensor dLogsumexp,
                                    Tensor x, Tensor gateWeight, Routed routed, boolean renormalize) {
        return router.backward(dLogits, dProbs, dWeights, dLogsumexp, x, gateWeight, routed, renormalize, vector());
    }

    // ---- permute ---------------------------------------------------------------------------------

    @Override
    public Permuted permute(Tensor x, Tensor expertIds, int numExperts, int capacity) {
        int tokens = x.size(0), d = x.size(1), k = expertIds.size(1), slots = tokens * k;
        long[] ids = CpuTensors.longsOf(PERMUTE, expertIds);
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
        HeapStorage permuted = io.newLongs(rows);
        long[] permutation = permuted.longs();
        long[] next = offsets.clone();
        for (int s = 0; s < slots; s++) {
            int e = (int) ids[s];
            if (next[e] < offsets[e] + sizes[e]) permutation[(int) next[e]++] = s;
        }
        Rows src = io.rows(PERMUTE, x, tokens, d);
        HeapStorage out = io.emptyFloats(rows * d); // every row is copied
        float[] o = out.floats();
        Parallel.forRange(rows, Parallel.rowGrain(d), (from, to) -> {
            for (int r = from; r < to; r++) System.arraycopy(src.data(), src.start((int) (permutation[r] / k)), o, r * d, d);
        });
        return new Permuted(Tensor.of(out, rows, d), io.longs(sizes, numExperts), io.longs(offsets, numExperts),
                Tensor.of(permuted, rows));
    }

    @Override
    public Tensor permuteBackward(Tensor gradRows, Tensor permutation, int tokens, int k) {
        return sumPerToken(PERMUTE, gradRows, null, permutation, tokens, k);
    }

    // ---- grouped GEMM ----------------------------------------------------------------------------

    @Override
    public Tensor groupedMatmul(Tensor x, List<Tensor> weights, Tensor groupSizes) {
        return grouped.forward(x, weights, groupSizes(x, groupSizes));
    }

    @Override
    public GroupedGrads groupedMatmulBackward(Tensor gradOut, Tensor x, List<Tensor> weights, Tensor groupSizes) {
        return grouped.backward(gradOut, x, weights, groupSizes(x, groupSizes));
    }

    // ---- the experts' gate and up projections with SwiGLU (on the vector GEMM's tiles) --------------

    @Override
    public GatedRows groupedSwiglu(Tensor x, List<Tensor> gate, List<Tensor> up, Tensor groupSizes, boolean keep) {
        // Kept projections: the grouped GEMMs write them from registers and the gate is one pass (CpuGroupedSwiglu)
        if (keep || !GemmTiles.supports(gemm)) return MoeKernels.super.groupedSwiglu(x, gate, up, groupSizes, keep);
        return new GatedRows(gated.forward(x, gate, up, groupSizes(x, groupSizes), vector()), null, null);
    }

    @Override
    public GatedGrads groupedSwigluBackward(Tensor gradOut, Tensor x, List<Tensor> gate, List<Tensor> up, Tensor groupSizes,
                                            Tensor gateOut, Tensor upOut) {
        if (!GemmTiles.supports(gemm)) return MoeKernels.super.groupedSwigluBackward(gradOut, x, gate, up, groupSizes, gateOut, upOut);
        return gated.backward(gradOut, x, gate, up, groupSizes(x, groupSizes), gateOut, upOut, vector());
    }

    // ---- the experts' SwiGLU gate -------------------------------------------------------------------

    @Override
    public Tensor swiglu(Tensor gate, Tensor up) {
        Tensor a = gate.contiguous(), b = up.contiguous();
        HeapStorage h = io.emptyFloats(a.numel());
        SwigluKernel.forward(vector(), floats(a), a.layout().offset(), floats(b), b.layout().offset(), h.floats(), a.numel());
        return Tensor.of(h, a.shape());
    }

    @Override
    public SwigluGrads swigluBackward(Tensor gradOut, Tensor gate, Tensor up) {
        Tensor g = gradOut.contiguous(), a = gate.contiguous(), b = up.contiguous();
        HeapStorage da = io.emptyFloats(a.numel()), db = io.emptyFloats(a.numel());
        SwigluKernel.backward(vector(), floats(g), g.layout().offset(), floats(a), a.layout().offset(), floats(b),
                b.layout().offset(), da.floats(), db.floats(), a.numel());
        return new SwigluGrads(Tensor.of(da, a.shape()), Tensor.of(db, a.shape()));
    }

    /** The backend's vector kernels, or the scalar twins when it runs without them. */
    private boolean vector() {
        return backend instanceof CpuBackend cpu && cpu.vectorKernels();
    }

    private static float[] floats(Tensor t) {
        return HeapStorage.floats(SWIGLU, t.storage(), t.layout());
    }

    // ---- combine ---------------------------------------------------------------------------------

    @Override
    public Tensor combine(Tensor ySorted, Tensor routingWeights, Tensor permutation) {
        return sumPerToken(COMBINE, ySorted, io.copyOf(routingWeights), permutation, routingWeights.size(0), routingWeights.size(1));
    }

    /**
     * out[t] = Σ_i w[t·k + i] · rows[row of slot t·k + i] over the kept slots, one pass over the
     * tokens (w null: 1): the first kept slot is written, the others added, a token with none is zeros.
     */
    private Tensor sumPerToken(String op, Tensor rows, float[] w, Tensor permutation, int tokens, int k) {
        int d = rows.size(1);
        int[] rowOfSlot = inverse(op, permutation, tokens * k);
        Rows y = io.rows(op, rows, rows.size(0), d);
        HeapStorage out = io.emptyFloats(tokens * d);
        float[] o = out.floats();
        Parallel.forRange(tokens, Parallel.rowGrain(d * k), (from, to) -> {
            for (int t = from; t < to; t++) {
                boolean written = false;
                for (int i = 0; i < k; i++) {
                    int r = rowOfSlot[t * k + i];
                    if (r < 0) continue;
                    float a = w == null ? 1f : w[t * k + i];
                    if (written) axpy(a, y.data(), y.start(r), o, t * d, d);
                    else scale(a, y.data(), y.start(r), o, t * d, d);
                    written = true;
                }
                if (!written) java.util.Arrays.fill(o, t * d, (t + 1) * d, 0f);
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
        // Each row is one kept slot's, so dy is written whole; a dropped slot's weight gradient is 0.
        HeapStorage dy = io.emptyFloats(rows * d), dw = io.emptyFloats(tokens * k);
        float[] dys = dy.floats(), dws = dw.floats();
        Parallel.forRange(tokens, Parallel.rowGrain(2 * d * k), (from, to) -> {
            for (int t = from; t < to; t++) {
                for (int i = 0; i < k; i++) {
                    int r = rowOfSlot[t * k + i];
                    if (r < 0) { // a dropped slot: no row, and no gradient to its weight
                        dws[t * k + i] = 0f;
                        continue;
                    }
                    scale(w[t * k + i], g.data(), g.start(t), dys, r * d, d);
                    dws[t * k + i] = dot(g.data(), g.start(t), y.data(), y.start(r), d);
                }
            }
        });
        return new CombineGrads(Tensor.of(dy, rows, d), Tensor.of(dw, tokens, k));
    }

    // ---- pieces ----------------------------------------------------------------------------------

    /** The sorted row of each slot, −1 for a dropped one; entries out of range or repeated throw naming the op. */
    private static int[] inverse(String op, Tensor permutation, int slots) {
        long[] perm = CpuTensors.longsOf(op, permutation);
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

    /** dst[dOff..] += a · src[sOff..] over n elements. */
    private static void axpy(float a, float[] src, int sOff, float[] dst, int dOff, int n) {
        for (int j = 0; j < n; j++) dst[dOff + j] += a * src[sOff + j];
    }

    /** dst[dOff..] = a · src[sOff..] over n elements. */
    private static void scale(float a, float[] src, int sOff, float[] dst, int dOff, int n) {
        for (int j = 0; j < n; j++) dst[dOff + j] = a * src[sOff + j];
    }

    private static float dot(float[] a, int aOff, float[] b, int bOff, int n) {
        double acc = 0;
        for (int j = 0; j < n; j++) acc += (double) a[aOff + j] * b[bOff + j];
        return (float) acc;
    }

    /**
     * The group sizes (E), read in place: each non-negative and all summing to the rows of x (R, in),
     * else an error naming grouped_matmul.
     */
    private static long[] groupSizes(Tensor x, Tensor groupSizes) {
        long[] sizes = CpuTensors.longsOf(GROUPED_MATMUL, groupSizes);
        long sum = java.util.Arrays.stream(sizes).sum();
        if (sum != x.size(0) || java.util.Arrays.stream(sizes).anyMatch(s -> s < 0)) {
            throw new IllegalArgumentException(GROUPED_MATMUL + ": group sizes " + java.util.Arrays.toString(sizes)
                    + " must be non-negative and sum to x's " + x.size(0) + " rows; they sum to " + sum);
        }
        return sizes;
    }

    @Override
    public String toString() { return "CpuMoe(" + gemm.path().id() + ")"; }
}
