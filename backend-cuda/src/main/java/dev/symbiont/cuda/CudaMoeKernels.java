package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.moe.ReferenceMoe;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.KernelArgs;

import java.util.List;
import java.util.OptionalLong;

/**
 * The moe family on {@code moe.cu}: the router's softmax, top-k, renormalisation and logsumexp in
 * one warp per token after the logits GEMM (and the logits' gradient likewise, then two GEMMs);
 * permute as a counting sort (per-chunk counts and ranks, one block for the offsets, a scatter,
 * a row gather), stable within each expert and cut at the capacity; combine and both backward
 * sums once per output element through the inverse permutation, so no atomics add floats and the
 * sums are deterministic; SwiGLU in one pass each way; the grouped GEMM is {@link CudaGroupedGemm}'s.
 *
 * <p>Nothing is read to the host in a dropless step. A dropping capacity's kept-row count is the
 * rows' shape, read once per permute as the reference does. Expert ids out of range and bad
 * permutations are found on the device and raised at the next synchronisation. The experts' gate
 * and up projections run as one kernel with SwiGLU applied to both tiles in registers
 * ({@code groupedSwiglu}); its backward is the contract's composition of these kernels. Empty
 * operands run the reference, counted by {@link Fallbacks}. {@code -Dsymbiont.cuda.moeGemm=blas}
 * runs the grouped GEMMs as cuBLAS's grouped GEMM instead ({@link CudaGroupedBlas}), to measure the two.
 */
final class CudaMoeKernels extends ReferenceMoe {
    private static final String GROUP = "moe", ROUTE = "moe_route", PERMUTE = "moe_permute", COMBINE = "moe_combine",
            SWIGLU = "moe_swiglu", GROUPED_MATMUL = "grouped_matmul", GROUPED_SWIGLU = "grouped_swiglu";
    /** Slots per block of the permute's counting pass (the kernel's CHUNK). */
    static final int CHUNK = 256;
    private static final int WARPS_PER_BLOCK = 8, MAX_GRID = 65_535;

    private final FusedOperands io;
    private final CudaGroupedGemm grouped;
    private final CudaGroupedBlas groupedBlas;

    CudaMoeKernels(CudaBackend backend) {
        this.io = new FusedOperands(backend);
        this.grouped = new CudaGroupedGemm(io);
        this.groupedBlas = new CudaGroupedBlas(io);
    }

    private CudaBackend backend() { return io.backend(); }

    // ---- route -----------------------------------------------------------------------------------

    @Override
    public Routed route(Tensor x, Tensor gateWeight, int k, boolean renormalize) {
        if (!FusedOperands.nonEmptyFloats(ROUTE, x, gateWeight)) return super.route(x, gateWeight, k, renormalize);
        backend().enter();
        int tokens = x.size(0), experts = gateWeight.size(0);
        Tensor logits = FusedOperands.dense(x.matmul(gateWeight.t()));
        Tensor probs = io.empty(tokens, experts), weights = io.empty(tokens, k), lse = io.empty(tokens);
        Tensor ids = Tensor.of(backend().empty(DType.INT64, (long) tokens * k), tokens, k);
        perWarp("moe_route_f32", tokens, KernelArgs.of().pointer(FusedOperands.address(probs)).pointer(FusedOperands.address(ids))
                .pointer(FusedOperands.address(weights)).pointer(FusedOperands.address(lse)).pointer(FusedOperands.address(logits))
                .i32(tokens).i32(experts).i32(k).i32(renormalize ? 1 : 0));
        return new Routed(logits, probs, ids, weights, lse);
    }

    @Override
    public RouteGrads routeBackward(Tensor dLogits, Tensor dProbs, Tensor dWeights, Tensor dLogsumexp,
                                    Tensor x, Tensor gateWeight, Routed routed, boolean renormalize) {
        String op = ROUTE + " backward";
        if (!FusedOperands.nonEmptyFloats(op, x, gateWeight, dLogits, dProbs, dWeights, dLogsumexp, routed.probs())) {
            return super.routeBackward(dLogits, dProbs, dWeights, dLogsumexp, x, gateWeight, routed, renormalize);
        }
        backend().enter();
        int tokens = x.size(0), experts = gateWeight.size(0), k = routed.expertIds().size(1);
        Tensor dh = io.empty(tokens, experts), ids = int64(routed.expertIds());
        perWarp("moe_route_backward_f32", tokens, KernelArgs.of().pointer(FusedOperands.address(dh))
                .pointer(denseAddress(dLogits)).pointer(denseAddress(dProbs)).pointer(denseAddress(dWeights))
                .pointer(denseAddress(dLogsumexp)).pointer(denseAddress(routed.probs())).pointer(FusedOperands.address(ids))
                .i32(tokens).i32(experts).i32(k).i32(renormalize ? 1 : 0));
        return new RouteGrads(dh.matmul(gateWeight), dh.t().matmul(x));
    }

    // ---- permute ---------------------------------------------------------------------------------

    @Override
    public Permuted permute(Tensor x, Tensor expertIds, int numExperts, int capacity) {
        int tokens = x.size(0), d = x.size(1), k = expertIds.size(1), slots = tokens * k;
        int chunks = (slots + CHUNK - 1) / CHUNK;
        if (!FusedOperands.nonEmptyFloats(PERMUTE, x)) return super.permute(x, expertIds, numExperts, capacity);
        if (chunks > MAX_GRID) {
            Fallbacks.record(PERMUTE, slots + " slots need more chunks than the grid's " + MAX_GRID);
            return super.permute(x, expertIds, numExperts, capacity);
        }
        CudaBackend be = backend();
        be.enter();
        // The index check's ids come out contiguous int64, as the kernels read them; a bad id is raised at the next synchronisation.
        Backend.IndexCheck checked = be.checkIndex(PERMUTE + ": expert id", expertIds.storage(), expertIds.layout(), numExperts,
                OptionalLong.empty());
        CudaStorage ids = CudaBackend.storage(checked.ids());
        checked.keep().release();
        CudaStorage counts = be.allocate(DType.INT32, (long) chunks * numExperts);
        CudaStorage base = be.empty(DType.INT32, (long) chunks * numExperts), rank = be.empty(DType.INT32, slots);
        CudaStorage sizes = be.empty(DType.INT64, numExperts), offsets = be.empty(DType.INT64, numExperts);
        boolean dropping = capacity < slots;
        CudaStorage kept = dropping ? be.empty(DType.INT64, 1) : null;
        be.kernels().launch(GROUP, "moe_permute_count", Dim3.of(chunks), Dim3.of(CHUNK), 0, KernelArgs.of()
                .pointer(counts.address()).pointer(rank.address()).pointer(ids.address()).i64(slots).i32(numExperts));
        be.kernels().launch(GROUP, "moe_permute_offsets", Dim3.of(1), Dim3.of(Kernels.THREADS), 0, KernelArgs.of()
                .pointer(sizes.address()).pointer(offsets.address()).pointer(kept == null ? 0 : kept.address())
                .pointer(base.address()).pointer(counts.address()).i32(chunks).i32(numExperts).i64(Math.min(capacity, slots)));
        // A dropping capacity's kept rows are the output's shape: the one value read on the host, as the reference does.
        int rows = dropping ? (int) Tensor.of(kept, 1).toLongArray()[0] : slots;
        CudaStorage permutation = be.empty(DType.INT64, rows);
        be.kernels().launch(GROUP, "moe_permute_scatter", slots, KernelArgs.of().pointer(permutation.address())
                .pointer(ids.address()).pointer(rank.address()).pointer(base.address()).pointer(sizes.address())
                .pointer(offsets.address()).i64(slots).i32(numExperts));
        Tensor xs = FusedOperands.dense(x), out = io.empty(rows, d);
        be.kernels().launch(GROUP, "moe_gather_rows_f32", (long) rows * d, KernelArgs.of().pointer(FusedOperands.address(out))
                .pointer(FusedOperands.address(xs)).pointer(permutation.address()).i64(rows).i32(d).i32(k).i64(slots));
        for (CudaStorage s : new CudaStorage[] {ids, counts, base, rank, kept}) if (s != null) s.release();
        return new Permuted(out, Tensor.of(sizes, numExperts), Tensor.of(offsets, numExperts), Tensor.of(permutation, rows));
    }

    @Override
    public Tensor permuteBackward(Tensor gradRows, Tensor permutation, int tokens, int k) {
        if (!FusedOperands.nonEmptyFloats(PERMUTE + " backward", gradRows)) return super.permuteBackward(gradRows, permutation, tokens, k);
        return sumPerToken(PERMUTE, gradRows, null, permutation, tokens, k);
    }

    // ---- grouped GEMM ------------------------------------------------------------------------------

    @Override
    public Tensor groupedMatmul(Tensor x, List<Tensor> weights, Tensor groupSizes) {
        if (!groupedReady(GROUPED_MATMUL, x, weights)) return super.groupedMatmul(x, weights, groupSizes);
        if (CudaGroupedBlas.selected()) return groupedBlas.forward(x, weights, groupSizes);
        return grouped.forward(x, weights, groupSizes);
    }

    @Override
    public GroupedGrads groupedMatmulBackward(Tensor gradOut, Tensor x, List<Tensor> weights, Tensor groupSizes) {
        String op = GROUPED_MATMUL + " backward";
        if (!groupedReady(op, x, weights) || !FusedOperands.nonEmptyFloats(op, gradOut)) {
            return super.groupedMatmulBackward(gradOut, x, weights, groupSizes);
        }
        if (CudaGroupedBlas.selected()) return groupedBlas.backward(gradOut, x, weights, groupSizes);
        return grouped.backward(gradOut, x, weights, groupSizes);
    }

    /** The gated kernel; on the BLAS route the contract's composition of two grouped GEMMs and {@link #swiglu}. */
    @Override
    public GatedRows groupedSwiglu(Tensor x, List<Tensor> gate, List<Tensor> up, Tensor groupSizes, boolean keep) {
        if (!groupedReady(GROUPED_SWIGLU, x, gate) || !FusedOperands.nonEmptyFloats(GROUPED_SWIGLU, up.toArray(new Tensor[0]))
                || CudaGroupedBlas.selected()) {
            return super.groupedSwiglu(x, gate, up, groupSizes, keep);
        }
        return grouped.swiglu(x, gate, up, groupSizes, keep);
    }

    private static boolean groupedReady(String op, Tensor x, List<Tensor> weights) {
        return FusedOperands.nonEmptyFloats(op, x) && FusedOperands.nonEmptyFloats(op, weights.toArray(new Tensor[0]))
                && CudaGroupedGemm.fits(op, x, weights.size());
    }

    // ---- combine ---------------------------------------------------------------------------------

    @Override
    public Tensor combine(Tensor ySorted, Tensor routingWeights, Tensor permutation) {
        if (!FusedOperands.nonEmptyFloats(COMBINE, ySorted, routingWeights)) return super.combine(ySorted, routingWeights, permutation);
        return sumPerToken(COMBINE, ySorted, routingWeights, permutation, routingWeights.size(0), routingWeights.size(1));
    }

    @Override
    public CombineGrads combineBackward(Tensor gradOut, Tensor ySorted, Tensor routingWeights, Tensor permutation) {
        String op = COMBINE + " backward";
        if (!FusedOperands.nonEmptyFloats(op, gradOut, ySorted, routingWeights)) {
            return super.combineBackward(gradOut, ySorted, routingWeights, permutation);
        }
        CudaBackend be = backend();
        be.enter();
        int tokens = routingWeights.size(0), k = routingWeights.size(1), d = ySorted.size(1), rows = ySorted.size(0);
        long slots = (long) tokens * k;
        Tensor g = FusedOperands.dense(gradOut), y = FusedOperands.dense(ySorted), w = FusedOperands.dense(routingWeights);
        Tensor perm = int64(permutation);
        CudaStorage rowOfSlot = inverse(COMBINE, perm, slots);
        Tensor dy = io.empty(rows, d), dw = io.empty(tokens, k);
        be.kernels().launch(GROUP, "moe_combine_backward_rows_f32", (long) rows * d, KernelArgs.of().pointer(FusedOperands.address(dy))
                .pointer(FusedOperands.address(g)).pointer(FusedOperands.address(w)).pointer(FusedOperands.address(perm))
                .i64(rows).i32(k).i32(d).i64(slots));
        perWarp("moe_combine_backward_weights_f32", slots, KernelArgs.of().pointer(FusedOperands.address(dw))
                .pointer(FusedOperands.address(g)).pointer(FusedOperands.address(y)).pointer(rowOfSlot.address())
                .i64(slots).i32(k).i32(d));
        rowOfSlot.release();
        return new CombineGrads(dy, dw);
    }

    /** out (T, d)[t] = Σ_i w[t, i] · rows[row of slot t·k + i] over the kept slots (w null: 1). */
    private Tensor sumPerToken(String op, Tensor rows, Tensor weights, Tensor permutation, int tokens, int k) {
        CudaBackend be = backend();
        be.enter();
        int d = rows.size(1);
        Tensor r = FusedOperands.dense(rows), w = FusedOperands.dense(weights), perm = int64(permutation);
        CudaStorage rowOfSlot = inverse(op, perm, (long) tokens * k);
        Tensor out = io.empty(tokens, d);
        be.kernels().launch(GROUP, "moe_sum_per_token_f32", (long) tokens * d, KernelArgs.of().pointer(FusedOperands.address(out))
                .pointer(FusedOperands.address(r)).pointer(FusedOperands.address(w)).pointer(rowOfSlot.address())
                .i64(tokens).i32(k).i32(d));
        rowOfSlot.release();
        return out;
    }

    /**
     * The row of each slot (T·k) int32, −1 for a dropped slot; an entry outside [0, T·k) or a slot
     * given twice raises, naming {@code op}, the entry and its row, at the next synchronisation.
     */
    private CudaStorage inverse(String op, Tensor permutation, long slots) {
        CudaBackend be = backend();
        CudaStorage rowOfSlot = CudaBackend.storage(be.full(DType.INT32, slots, -1));
        long range = be.errors().slotWithValue((row, entry) -> new IndexOutOfBoundsException(op + ": permutation entry " + entry
                + " at row " + row + " is outside [0, " + slots + ")"));
        long twice = be.errors().slotWithValue((row, entry) -> new IllegalArgumentException(op + ": slot " + entry
                + " appears more than once in the permutation (again at row " + row + ")"));
        long rows = permutation.size(0);
        be.kernels().launch(GROUP, "moe_inverse_permutation", rows, KernelArgs.of().pointer(rowOfSlot.address())
                .pointer(FusedOperands.address(permutation)).i64(rows).i64(slots).pointer(range).pointer(twice));
        be.kernels().launch(GROUP, "moe_permutation_error_values", Dim3.of(1), Dim3.of(1), 0, KernelArgs.of()
                .pointer(FusedOperands.address(permutation)).pointer(range).pointer(twice));
        return rowOfSlot;
    }

    // ---- SwiGLU ------------------------------------------------------------------------------------

    @Override
    public Tensor swiglu(Tensor gate, Tensor up) {
        if (!FusedOperands.nonEmptyFloats(SWIGLU, gate, up)) return super.swiglu(gate, up);
        backend().enter();
        Tensor a = FusedOperands.dense(gate), b = FusedOperands.dense(up), h = io.empty(gate.shape());
        backend().kernels().launch(GROUP, "moe_swiglu_f32", a.numel(), KernelArgs.of().pointer(FusedOperands.address(h))
                .pointer(FusedOperands.address(a)).pointer(FusedOperands.address(b)).i64(a.numel()));
        return h;
    }

    @Override
    public SwigluGrads swigluBackward(Tensor gradOut, Tensor gate, Tensor up) {
        String op = SWIGLU + " backward";
        if (!FusedOperands.nonEmptyFloats(op, gradOut, gate, up)) return super.swigluBackward(gradOut, gate, up);
        backend().enter();
        Tensor g = FusedOperands.dense(gradOut), a = FusedOperands.dense(gate), b = FusedOperands.dense(up);
        Tensor da = io.empty(gate.shape()), db = io.empty(gate.shape());
        backend().kernels().launch(GROUP, "moe_swiglu_backward_f32", a.numel(), KernelArgs.of().pointer(FusedOperands.address(da))
                .pointer(FusedOperands.address(db)).pointer(FusedOperands.address(g)).pointer(FusedOperands.address(a))
                .pointer(FusedOperands.address(b)).i64(a.numel()));
        return new SwigluGrads(da, db);
    }

    // ---- pieces ------------------------------------------------------------------------------------

    /** One warp per item: blocks of {@value #WARPS_PER_BLOCK} warps. */
    private void perWarp(String kernel, long items, KernelArgs args) {
        int blocks = (int) ((items + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK);
        backend().kernels().launch(GROUP, kernel, Dim3.of(blocks), Dim3.of(32 * WARPS_PER_BLOCK), 0, args);
    }

    /** The device address of t made contiguous, or 0 for an absent operand. */
    private static long denseAddress(Tensor t) { return FusedOperands.address(FusedOperands.dense(t)); }

    /** Integer t as contiguous int64, as the kernels read ids and permutations. */
    private static Tensor int64(Tensor t) {
        return (t.dtype() == DType.INT64 ? t : t.to(DType.INT64)).contiguous();
    }

    @Override
    public String toString() { return "CudaMoeKernels"; }
}
