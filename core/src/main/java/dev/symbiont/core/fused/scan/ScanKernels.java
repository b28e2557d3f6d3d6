package dev.symbiont.core.fused.scan;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

/**
 * The scan family's contract: the first-order linear recurrence, Mamba's selective scan and
 * Mamba-2's chunked SSD, each with its backward. Semantics and shapes are {@link Scans}'s; inputs carry no autograd
 * history, may have any strides and have passed {@link Scans}'s checks. {@link ReferenceScan}
 * is the reference: it materialises ΔA and ΔB·u, (batch, d_inner, L, N) each, and walks L with
 * tensor ops, which a backend's kernel should never do.
 */
public interface ScanKernels {

    Family<ScanKernels> FAMILY = new Family<>("scan", ScanKernels.class, new ReferenceScan());

    /**
     * h_t = a_t·h_{t−1} + b_t along {@code dim}, h_{−1} = h0 (0 when null).
     *
     * @param a   any shape, the coefficients
     * @param b   a's shape, the inputs
     * @param h0  null, or the initial state: a's shape without {@code dim}
     * @param dim a valid dimension of a (already normalised, ≥ 0)
     * @return h, a's shape, contiguous
     */
    Tensor linearScan(Tensor a, Tensor b, Tensor h0, int dim);

    /**
     * The reverse recurrence of {@link #linearScan}: with gh_t = g_t + a_{t+1}·gh_{t+1},
     * db = gh, da_t = gh_t·h_{t−1} (h_{−1} = h0, or 0) and dh0 = a_0·gh_0.
     *
     * @param a     the forward's coefficients
     * @param h     the forward's output
     * @param h0    the forward's initial state, or null
     * @param gradH the gradient of h
     * @param want  which gradients to compute; an unwanted one is returned as null
     */
    LinearScanGrads linearScanBackward(Tensor a, Tensor h, Tensor h0, Tensor gradH, int dim, Wanted want);

    /** Which of a linear scan's gradients its backward computes: those of the inputs that require one. */
    record Wanted(boolean da, boolean db, boolean dh0) {}

    /**
     * Mamba's selective scan ({@code selective_scan_fn}): dt = softplus?(delta + deltaBias),
     * h_l = exp(dt_l·A)·h_{l−1} + dt_l·B_l·u_l (h_{−1} the initial state, or 0),
     * y_l = Σ_n h_l·C_l, out = (y + D·u)·silu(z).
     *
     * @param returnLastState whether to return h at l = L − 1, (batch, d_inner, N)
     */
    SelectiveScanResult selectiveScan(SelectiveScanArgs args, boolean returnLastState);

    /**
     * Gradients of {@link #selectiveScan} for every input args holds (null for an absent one).
     *
     * @param forward what this family's {@link #selectiveScan} returned for {@code args}
     * @param gradOut (batch, d_inner, L), the gradient of the output
     */
    SelectiveScanGrads selectiveScanBackward(SelectiveScanArgs args, SelectiveScanResult forward, Tensor gradOut);

    /** Gradients of a linear scan's coefficients a and inputs b (a's shape) and initial state h0 (its shape); null when not wanted. */
    record LinearScanGrads(Tensor da, Tensor db, Tensor dh0) {}

    /**
     * The selective scan's operands, as kernels see them.
     *
     * @param u             (batch, d_inner, L)
     * @param delta         (batch, d_inner, L)
     * @param A             (d_inner, N)
     * @param B             (batch, G, N, L), G dividing d_inner (channel c reads group c / (d_inner / G))
     * @param C             (batch, G, N, L)
     * @param D             null or (d_inner)
     * @param z             null or (batch, d_inner, L)
     * @param deltaBias     null or (d_inner)
     * @param deltaSoftplus whether dt = softplus(delta + deltaBias) rather than delta + deltaBias
     * @param initialState  null (h_{−1} = 0) or h_{−1}, (batch, d_inner, N)
     */
    record SelectiveScanArgs(Tensor u, Tensor delta, Tensor A, Tensor B, Tensor C, Tensor D, Tensor z,
                             Tensor deltaBias, boolean deltaSoftplus, Tensor initialState) {
        public int batch() { return u.size(0); }
        public int channels() { return u.size(1); }
        public int length() { return u.size(2); }
        public int states() { return A.size(1); }
        public int groups() { return B.size(1); }
    }

    /**
     * The selective scan's output (batch, d_inner, L), its last state (batch, d_inner, N) or
     * null, and whatever the kernel keeps for its backward (null for the reference; the CPU
     * kernel's per-chunk state checkpoints).
     */
    record SelectiveScanResult(Tensor output, Tensor lastState, Tensor saved) {}

    /** One gradient per {@link SelectiveScanArgs} tensor, each of its shape; null where the input is absent. */
    record SelectiveScanGrads(Tensor du, Tensor ddelta, Tensor dA, Tensor dB, Tensor dC, Tensor dD, Tensor dz,
                              Tensor ddeltaBias, Tensor dInitialState) {}

    /**
     * Mamba-2's SSD in its chunked matrix form (mamba-ssm's {@code mamba_chunk_scan_combined}):
     * per head, h_t = exp(Δ_t·A)·h_{t−1} + Δ_t·x_t B_tᵀ (h (P, N), h_{−1} the initial state or 0),
     * y_t = h_t C_t + D·x_t, computed chunk by chunk ({@link Scans#ssdChunked}). The default is the
     * reference composition of tensor ops on this backend's primitives, which a backend with its
     * own kernels overrides.
     */
    default SsdResult ssdChunked(SsdArgs args) { return SsdChunks.forward(args); }

    /**
     * Gradients of {@link #ssdChunked} for every input args holds (null for an absent one); the
     * default reruns the reference composition under autograd.
     *
     * @param forward        what this family's {@link #ssdChunked} returned for {@code args}
     * @param gradY          null or (batch, L, heads, P), the gradient of y
     * @param gradFinalState null or (batch, heads, P, N), the gradient of the final state; not both null
     */
    default SsdGrads ssdChunkedBackward(SsdArgs args, SsdResult forward, Tensor gradY, Tensor gradFinalState) {
        return SsdChunks.backward(args, gradY, gradFinalState);
    }

    /**
     * The chunked SSD's operands, as kernels see them (any strides).
     *
     * @param x            (batch, L, heads, P), L ≥ 1
     * @param dt           Δ after its bias and softplus, (batch, L, heads)
     * @param A            (heads), one (negative) scalar per head
     * @param B            (batch, L, groups, N), groups dividing heads; head h reads group h / (heads / groups)
     * @param C            (batch, L, groups, N)
     * @param D            null or (heads): the skip y += D·x
     * @param initialState null (h_{−1} = 0) or h_{−1}, (batch, heads, P, N)
     * @param chunk        Q, the chunk length (≥ 1; mamba-ssm: 256); L ≤ Q is one chunk of L
     */
    record SsdArgs(Tensor x, Tensor dt, Tensor A, Tensor B, Tensor C, Tensor D, Tensor initialState, int chunk) {
        public int batch() { return x.size(0); }
        public int length() { return x.size(1); }
        public int heads() { return x.size(2); }
        public int headDim() { return x.size(3); }
        public int groups() { return B.size(2); }
        public int states() { return B.size(3); }
        /** The chunk length the form runs: Q, or L when L is shorter. */
        public int chunkLength() { return Math.min(chunk, length()); }
        public int chunks() { return (length() + chunkLength() - 1) / chunkLength(); }
    }

    /**
     * The chunked SSD's output y (batch, L, heads, P), its final state h_{L−1} (batch, heads, P, N),
     * which carries a gradient in this form, and whatever the kernels keep for the backward
     * (null for the reference).
     */
    record SsdResult(Tensor y, Tensor finalState, Tensor saved) {}

    /** One gradient per {@link SsdArgs} tensor, each of its shape; null where the input is absent. */
    record SsdGrads(Tensor dx, Tensor ddt, Tensor dA, Tensor dB, Tensor dC, Tensor dD, Tensor dInitialState) {}
}
