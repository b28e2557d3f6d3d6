package dev.symbiont.core.fused.scan;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.ops.Checks;
import dev.symbiont.core.profile.OpCategory;

import java.util.Arrays;

/**
 * The scans state-space models are built on, through the backend's scan family
 * ({@link ScanKernels}).
 *
 * <p>{@link #linearScan}: the general first-order recurrence h_t = a_t·h_{t−1} + b_t.
 *
 * <p>Both scans start from h_{−1} = 0 or from a given initial state, which gets a gradient too.
 *
 * <p>{@link #selectiveScan}: the selective scan of Mamba (Gu &amp; Dao 2023, Algorithm 2),
 * with the semantics of mamba-ssm's {@code selective_scan_fn}. Per batch b and channel d, with
 * an N-dimensional state h (h_{−1} = 0, or a given initial state):
 * <pre>
 *   dt_l = softplus(delta_l + deltaBias)           (or without softplus)     discretisation step
 *   h_l  = exp(dt_l·A)·h_{l−1} + dt_l·B_l·u_l                                 zero-order hold of A, Euler of B
 *   y_l  = Σ_n h_l[n]·C_l[n]
 *   out_l = (y_l + D·u_l)·silu(z_l)                (no gate without z; no skip without D)
 * </pre>
 * B and C are input-dependent ("selective"): (batch, N, L), or grouped (batch, G, N, L) where
 * channel d reads group d / (d_inner / G). The final state h_{L−1} is returned on request; it
 * carries no gradient (as in mamba-ssm).
 *
 * <p>{@link #ssdChunked}: Mamba-2's SSD (Dao &amp; Gu 2024, §6), the selective SSM whose A is one
 * scalar per head, in its chunked matrix form (mamba-ssm's {@code mamba_chunk_scan_combined}).
 * Its final state carries a gradient.
 */
public final class Scans {
    private Scans() {}

    static final String LINEAR = "linear_scan";
    static final String SELECTIVE = "selective_scan";
    static final String SSD = "ssd_chunked";
    private static final FusedOp<ScanKernels> LINEAR_SCAN = FusedOp.of(ScanKernels.FAMILY, LINEAR, OpCategory.SCAN);
    private static final FusedOp<ScanKernels> SELECTIVE_SCAN = FusedOp.of(ScanKernels.FAMILY, SELECTIVE, OpCategory.SCAN);
    private static final FusedOp<ScanKernels> SSD_CHUNKED = FusedOp.of(ScanKernels.FAMILY, SSD, OpCategory.SCAN);

    /** {@link #linearScan(Tensor, Tensor, int, Tensor)} from h_{−1} = 0. */
    public static Tensor linearScan(Tensor a, Tensor b, int dim) {
        return linearScan(a, b, dim, null);
    }

    /**
     * h_t = a_t·h_{t−1} + b_t along {@code dim}, h_{−1} = initialState (0 when null);
     * differentiable w.r.t. a, b and the initial state. Scanning a sequence in two pieces, the
     * second from the first's last step, gives the whole scan (chunked prefill).
     *
     * @param a            coefficients, any shape
     * @param b            inputs, a's shape
     * @param dim          the dimension the recurrence runs along (negative counts from the end)
     * @param initialState null, or h_{−1}: a's shape without {@code dim}
     * @return h, a's shape
     * @throws IllegalArgumentException when a and b differ in shape, the initial state does not
     *         have a's shape without dim, an operand is not float32 or they live on different backends
     */
    public static Tensor linearScan(Tensor a, Tensor b, int dim, Tensor initialState) {
        Checks.sameBackend(LINEAR, a, b, initialState);
        Checks.float32(LINEAR, a, b, initialState);
        if (!Arrays.equals(a.shape(), b.shape())) {
            throw new IllegalArgumentException(LINEAR + ": a and b must have the same shape, got a "
                    + Arrays.toString(a.shape()) + ", b " + Arrays.toString(b.shape()));
        }
        int d = a.layout().dim(LINEAR, dim);
        if (initialState != null && !Arrays.equals(initialState.shape(), withoutDim(a.shape(), d))) {
            throw new IllegalArgumentException(LINEAR + ": initialState must be a's shape without dim " + d + ", "
                    + Arrays.toString(withoutDim(a.shape(), d)) + "; got a " + Arrays.toString(a.shape())
                    + ", initialState " + Arrays.toString(initialState.shape()));
        }
        Tensor a2 = a.detach(), b2 = b.detach(), h0 = detach(initialState);
        ScanKernels.Wanted want = new ScanKernels.Wanted(a.requiresGrad(), b.requiresGrad(),
                initialState != null && initialState.requiresGrad());
        return LINEAR_SCAN.run(a.backend(), 2L * a.numel(), 3 * FusedOp.bytes(a, b),
                k -> FusedOp.saving(k.linearScan(a2, b2, h0, d)),
                (k, h, g) -> {
                    ScanKernels.LinearScanGrads gr = k.linearScanBackward(a2, h, h0, g, d, want);
                    return new Tensor[] {gr.da(), gr.db(), gr.dh0()};
                }, a, b, initialState);
    }

    private static int[] withoutDim(int[] shape, int dim) {
        int[] out = new int[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) if (i != dim) out[j++] = shape[i];
        return out;
    }

    /** The selective scan's output (batch, d_inner, L) and, when asked for, its last state (batch, d_inner, N). */
    public record ScanOutput(Tensor output, Tensor lastState) {}

    /** {@link #selectiveScan(Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, boolean, boolean)} without the last state. */
    public static Tensor selectiveScan(Tensor u, Tensor delta, Tensor A, Tensor B, Tensor C, Tensor D, Tensor z,
                                       Tensor deltaBias, boolean deltaSoftplus) {
        return selectiveScan(u, delta, A, B, C, D, z, deltaBias, deltaSoftplus, false).output();
    }

    /** {@link #selectiveScan(Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, boolean, Tensor, boolean)} from h_{−1} = 0. */
    public static ScanOutput selectiveScan(Tensor u, Tensor delta, Tensor A, Tensor B, Tensor C, Tensor D, Tensor z,
                                           Tensor deltaBias, boolean deltaSoftplus, boolean returnLastState) {
        return selectiveScan(u, delta, A, B, C, D, z, deltaBias, deltaSoftplus, null, returnLastState);
    }

    /**
     * The selective scan, differentiable w.r.t. u, delta, A, B, C, D, z, deltaBias and the
     * initial state. Scanning L in two pieces, the second from the first's last state, gives the
     * whole scan: a prompt can be prefilled a chunk at a time (mamba's {@code ssm_state}).
     *
     * @param u               (batch, d_inner, L) input
     * @param delta           (batch, d_inner, L) step sizes before bias and softplus
     * @param A               (d_inner, N) state matrix (diagonal per channel; Mamba's −exp(A_log))
     * @param B               (batch, N, L) or (batch, G, N, L) input projections
     * @param C               B's shape, output projections
     * @param D               null or (d_inner) skip weights
     * @param z               null or (batch, d_inner, L) gate
     * @param deltaBias       null or (d_inner) added to delta
     * @param deltaSoftplus   whether dt = softplus(delta + deltaBias)
     * @param initialState    null (h_{−1} = 0) or h_{−1}, (batch, d_inner, N)
     * @param returnLastState whether to return h_{L−1}, (batch, d_inner, N)
     * @throws IllegalArgumentException naming the op and the shapes when they disagree, when G
     *         does not divide d_inner, L is 0, an operand is not float32 or they live on different backends
     */
    public static ScanOutput selectiveScan(Tensor u, Tensor delta, Tensor A, Tensor B, Tensor C, Tensor D, Tensor z,
                                           Tensor deltaBias, boolean deltaSoftplus, Tensor initialState,
                                           boolean returnLastState) {
        check(u, delta, A, B, C, D, z, deltaBias, initialState);
        ScanKernels.SelectiveScanArgs args = new ScanKernels.SelectiveScanArgs(u.detach(), delta.detach(), A.detach(),
                grouped(B).detach(), grouped(C).detach(), detach(D), detach(z), detach(deltaBias), deltaSoftplus,
                detach(initialState));
        long flops = 9L * u.numel() * A.size(1);
        long bytes = FusedOp.bytes(u, delta, A, B, C, D, z, deltaBias, u);
        ScanKernels.SelectiveScanResult[] forward = new ScanKernels.SelectiveScanResult[1];
        Tensor out = SELECTIVE_SCAN.run(u.backend(), flops, bytes,
                k -> {
                    ScanKernels.SelectiveScanResult r = k.selectiveScan(args, returnLastState);
                    forward[0] = r;
                    return new FusedOp.Result<>(r.output(), new ScanKernels.SelectiveScanResult(null, null, r.saved()));
                },
                (k, saved, g) -> {
                    ScanKernels.SelectiveScanGrads gr = k.selectiveScanBackward(args, saved, g);
                    return new Tensor[] {gr.du(), gr.ddelta(), gr.dA(), like(gr.dB(), B), like(gr.dC(), C), gr.dD(),
                            gr.dz(), gr.ddeltaBias(), gr.dInitialState()};
                }, u, delta, A, B, C, D, z, deltaBias, initialState);
        return new ScanOutput(out, forward[0].lastState());
    }

    /** The chunked SSD's output y (batch, L, heads, P) and final state (batch, heads, P, N), both differentiable. */
    public record SsdOutput(Tensor y, Tensor finalState) {}

    /**
     * Mamba-2's SSD, computed in chunks of Q positions so that the work is matrix products
     * ({@link ScanKernels#ssdChunked}); per head, with h (P, N) and h_{−1} = the initial state or 0:
     * <pre>
     *   h_t = exp(Δ_t·A)·h_{t−1} + Δ_t·x_t B_tᵀ
     *   y_t = h_t C_t + D·x_t
     * </pre>
     * Differentiable w.r.t. every input, through y and through the final state.
     *
     * @param x            (batch, L, heads, P)
     * @param dt           Δ after its bias and softplus, (batch, L, heads)
     * @param A            (heads), negative
     * @param B            (batch, L, groups, N), groups dividing heads; head h reads group h / (heads / groups)
     * @param C            (batch, L, groups, N)
     * @param D            null or (heads): the skip y += D·x
     * @param initialState null (zeros) or h_{−1}, (batch, heads, P, N)
     * @param chunk        Q, the chunk length (mamba-ssm: 256); L ≤ Q is one chunk of L
     * @throws IllegalArgumentException naming the op and every shape when they disagree, L is 0,
     *         the chunk is below 1, an operand is not float32 or they live on different backends
     */
    public static SsdOutput ssdChunked(Tensor x, Tensor dt, Tensor A, Tensor B, Tensor C, Tensor D, Tensor initialState,
                                       int chunk) {
        checkSsd(SSD, x, dt, A, B, C, D, initialState);
        if (chunk <= 0) throw new IllegalArgumentException(SSD + ": the chunk length must be at least 1, got " + chunk);
        ScanKernels.SsdArgs args = new ScanKernels.SsdArgs(x.detach(), dt.detach(), A.detach(), B.detach(), C.detach(),
                detach(D), detach(initialState), chunk);
        int q = args.chunkLength();
        long flops = 2L * x.numel() * (q + 2L * B.size(3)) + 2L * B.numel() / B.size(2) * x.size(2) * q;
        long bytes = FusedOp.bytes(x, dt, A, B, C, D, initialState, x, initialState);
        FusedOp.Pair out = SSD_CHUNKED.runPair(x.backend(), flops, bytes,
                k -> {
                    ScanKernels.SsdResult r = k.ssdChunked(args);
                    return new FusedOp.PairResult<>(r.y(), r.finalState(), new ScanKernels.SsdResult(null, null, r.saved()));
                },
                (k, saved, gy, gFinal) -> {
                    ScanKernels.SsdGrads g = k.ssdChunkedBackward(args, saved, gy, gFinal);
                    return new Tensor[] {g.dx(), g.ddt(), g.dA(), g.dB(), g.dC(), g.dD(), g.dInitialState()};
                }, x, dt, A, B, C, D, initialState);
        return new SsdOutput(out.first(), out.second());
    }

    /**
     * Throws, naming {@code op} and every shape, unless the inputs are those {@link #ssdChunked}
     * documents (the SSD's other forms check the same).
     */
    public static void checkSsd(String op, Tensor x, Tensor dt, Tensor A, Tensor B, Tensor C, Tensor D, Tensor initialState) {
        Checks.sameBackend(op, x, dt, A, B, C, D, initialState);
        Checks.float32(op, x, dt, A, B, C, D, initialState);
        boolean ok = x.dim() == 4 && x.size(1) > 0;
        if (ok) {
            int batch = x.size(0), len = x.size(1), heads = x.size(2), p = x.size(3);
            ok = Arrays.equals(dt.shape(), new int[] {batch, len, heads}) && Arrays.equals(A.shape(), new int[] {heads})
                    && B.dim() == 4 && B.size(0) == batch && B.size(1) == len && B.size(2) > 0 && heads % B.size(2) == 0
                    && Arrays.equals(C.shape(), B.shape()) && (D == null || Arrays.equals(D.shape(), new int[] {heads}))
                    && (initialState == null || Arrays.equals(initialState.shape(), new int[] {batch, heads, p, B.size(3)}));
        }
        if (!ok) {
            throw new IllegalArgumentException(op + ": expected x (batch, L ≥ 1, heads, P), dt (batch, L, heads), A (heads), "
                    + "B and C (batch, L, groups, N) with groups dividing heads, D (heads) or none, initial state "
                    + "(batch, heads, P, N) or none; got x " + shape(x) + ", dt " + shape(dt) + ", A " + shape(A) + ", B "
                    + shape(B) + ", C " + shape(C) + ", D " + shape(D) + ", initial state " + shape(initialState));
        }
    }

    /** The argument checks; each message names the op and the shapes. */
    static void check(Tensor u, Tensor delta, Tensor A, Tensor B, Tensor C, Tensor D, Tensor z, Tensor deltaBias,
                      Tensor initialState) {
        Checks.sameBackend(SELECTIVE, u, delta, A, B, C, D, z, deltaBias, initialState);
        Checks.float32(SELECTIVE, u, delta, A, B, C, D, z, deltaBias, initialState);
        String shapes = shapes(u, delta, A, B, C, D, z, deltaBias) + ", initialState " + shape(initialState);
        if (u.dim() != 3) fail("u must be (batch, d_inner, L)", shapes);
        int batch = u.size(0), channels = u.size(1), len = u.size(2);
        if (len == 0) fail("L must be at least 1", shapes);
        if (!Arrays.equals(delta.shape(), u.shape())) fail("delta must have u's shape (batch, d_inner, L)", shapes);
        if (z != null && !Arrays.equals(z.shape(), u.shape())) fail("z must have u's shape (batch, d_inner, L)", shapes);
        if (A.dim() != 2 || A.size(0) != channels) fail("A must be (d_inner, N) = (" + channels + ", N)", shapes);
        int n = A.size(1);
        if (n == 0) fail("N must be at least 1", shapes);
        for (Tensor bc : new Tensor[] {B, C}) {
            String which = bc == B ? "B" : "C";
            boolean ok = bc.dim() == 3 ? bc.size(0) == batch && bc.size(1) == n && bc.size(2) == len
                    : bc.dim() == 4 && bc.size(0) == batch && bc.size(2) == n && bc.size(3) == len;
            if (!ok) fail(which + " must be (batch, N, L) = (" + batch + ", " + n + ", " + len + ") or (batch, G, N, L)", shapes);
        }
        if (!Arrays.equals(B.shape(), C.shape())) fail("B and C must have the same shape", shapes);
        int groups = B.dim() == 4 ? B.size(1) : 1;
        if (groups == 0 || channels % groups != 0) {
            fail("the " + groups + " groups of B and C must divide d_inner = " + channels, shapes);
        }
        if (D != null && (D.dim() != 1 || D.size(0) != channels)) fail("D must be (d_inner) = (" + channels + ")", shapes);
        if (deltaBias != null && (deltaBias.dim() != 1 || deltaBias.size(0) != channels)) {
            fail("deltaBias must be (d_inner) = (" + channels + ")", shapes);
        }
        if (initialState != null && !Arrays.equals(initialState.shape(), new int[] {batch, channels, n})) {
            fail("initialState must be (batch, d_inner, N) = (" + batch + ", " + channels + ", " + n + ")", shapes);
        }
    }

    private static void fail(String what, String shapes) {
        throw new IllegalArgumentException(SELECTIVE + ": " + what + "; got " + shapes);
    }

    private static String shapes(Tensor u, Tensor delta, Tensor A, Tensor B, Tensor C, Tensor D, Tensor z, Tensor deltaBias) {
        return "u " + shape(u) + ", delta " + shape(delta) + ", A " + shape(A) + ", B " + shape(B) + ", C " + shape(C)
                + ", D " + shape(D) + ", z " + shape(z) + ", deltaBias " + shape(deltaBias);
    }

    private static String shape(Tensor t) { return t == null ? "none" : Arrays.toString(t.shape()); }

    /** B or C as (batch, G, N, L): a (batch, N, L) one is one group. */
    private static Tensor grouped(Tensor bc) { return bc.dim() == 3 ? bc.unsqueeze(1) : bc; }

    /** A (batch, G, N, L) gradient in the shape of the B or C it belongs to. */
    private static Tensor like(Tensor grad, Tensor original) {
        return grad == null || grad.dim() == original.dim() ? grad : grad.reshape(original.shape());
    }

    private static Tensor detach(Tensor t) { return t == null ? null : t.detach(); }
}
