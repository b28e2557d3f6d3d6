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
 */
public final class Scans {
    private Scans() {}

    static final String LINEAR = "linear_scan";
    static final String SELECTIVE = "selective_scan";
    private static final FusedOp<ScanKernels> LINEAR_SCAN = FusedOp.of(ScanKernels.FAMILY, LINEAR, OpCategory.SCAN);
    private static final FusedOp<ScanKernels> SELECTIVE_SCAN = FusedOp.of(ScanKernels.FAMILY, SELECTIVE, OpCategory.SCAN);

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
