package dev.symbiont.core.fused.scan;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.ops.Creation;
import dev.symbiont.core.ops.Masks;

import java.util.ArrayList;
import java.util.List;

/**
 * The reference of Mamba-2's chunked SSD ({@link ScanKernels#ssdChunked}): the chunked matrix
 * form of Dao &amp; Gu 2024, §6 (mamba-ssm's {@code ssd_minimal_discrete}), composed of tensor ops
 * (cumsum, exp, additive causal masks, batched matmul) on the backend's primitives. Per chunk c
 * of Q positions, with cum_l = Σ_{k≤l} Δ_k A inside the chunk:
 * <pre>
 *   within a chunk    Y_diag = (L ∘ C Bᵀ)(Δ·X),  L[l, s] = exp(cum_l − cum_s) for s ≤ l, 0 above     (§6.1)
 *   a chunk's state   S_c    = Σ_s exp(cum_end − cum_s) Δ_s x_s B_sᵀ                               (§6.2)
 *   between chunks    H_c    = exp(cum_end)·H_{c−1} + S_c, H_{−1} = h₀                             (§6.3)
 *   state to output   Y_off[l] = exp(cum_l)·H_{c−1} C_l                                            (§6.4)
 * </pre>
 * The recurrence between chunks is itself one masked product over the chunks. A sequence that is
 * not a multiple of Q is padded with Δ = 0, x = 0 (decay 1, no input), which leaves the outputs
 * and the final state unchanged. The backward is autograd over the same composition, rerun from
 * the inputs: nothing of the forward is kept.
 */
final class SsdChunks {
    private SsdChunks() {}

    /** y (batch, L, heads, P) and the final state (batch, heads, P, N) of {@code s}. */
    static ScanKernels.SsdResult forward(ScanKernels.SsdArgs s) {
        Tensor x = s.x();
        int batch = s.batch(), len = s.length(), heads = s.heads(), p = s.headDim(), n = s.states();
        int q = s.chunkLength(), chunks = s.chunks(), padded = chunks * q;
        // (batch, chunks, heads, Q, ·): one row block per chunk and head.
        Tensor xc = padTime(x, padded).reshape(batch, chunks, q, heads, p).permute(0, 1, 3, 2, 4);
        Tensor bc = padTime(perHead(s.B(), heads), padded).reshape(batch, chunks, q, heads, n).permute(0, 1, 3, 2, 4);
        Tensor cc = padTime(perHead(s.C(), heads), padded).reshape(batch, chunks, q, heads, n).permute(0, 1, 3, 2, 4);
        Tensor dtc = padTime(s.dt(), padded).reshape(batch, chunks, q, heads).permute(0, 1, 3, 2);        // (batch, chunks, heads, Q)
        Tensor cum = dtc.mul(s.A().reshape(heads, 1)).cumsum(3);                                          // Σ_{k≤l} Δ_k A
        Tensor xdt = xc.mul(dtc.unsqueeze(4));                                                            // Δ·x

        Tensor yDiag = cc.matmul(bc.transpose(3, 4)).mul(causalDecay(cum)).matmul(xdt);                 // (batch, chunks, heads, Q, P)

        Tensor total = cum.narrow(3, q - 1, 1);                                                           // Σ_{chunk} Δ A
        Tensor states = xdt.mul(total.sub(cum).exp().unsqueeze(4)).transpose(3, 4).matmul(bc);          // S_c (batch, chunks, heads, P, N)

        Tensor h0 = s.initialState() == null ? zeros(x, batch, 1, heads, p, n) : s.initialState().unsqueeze(1);
        Tensor start = Tensor.cat(List.of(h0, states), 1).permute(0, 2, 1, 3, 4).reshape(batch, heads, chunks + 1, p * n);
        Tensor sums = Tensor.cat(List.of(zeros(x, batch, 1, heads), total.squeeze(3)), 1).permute(0, 2, 1);  // (batch, heads, chunks + 1)
        Tensor carried = causalDecay(sums.cumsum(2)).matmul(start);                                      // H_{c−1} for c = 0..chunks
        Tensor entering = carried.narrow(2, 0, chunks).reshape(batch, heads, chunks, p, n).permute(0, 2, 1, 3, 4);
        Tensor finalState = carried.select(2, chunks).reshape(batch, heads, p, n);

        Tensor yOff = cc.matmul(entering.transpose(3, 4)).mul(cum.exp().unsqueeze(4));                  // (batch, chunks, heads, Q, P)
        Tensor y = yDiag.add(yOff).permute(0, 1, 3, 2, 4).reshape(batch, padded, heads, p);
        if (padded != len) y = y.narrow(1, 0, len);
        if (s.D() != null) y = y.add(x.mul(s.D().reshape(heads, 1)));
        return new ScanKernels.SsdResult(y.contiguous(), finalState.contiguous(), null);
    }

    /**
     * The gradients of {@link #forward} by autograd over the composition, rerun on leaf copies of
     * the inputs; gradY and gradFinalState may each be null (no gradient reaches that output).
     */
    static ScanKernels.SsdGrads backward(ScanKernels.SsdArgs s, Tensor gradY, Tensor gradFinalState) {
        List<Tensor> leaves = new ArrayList<>();
        ScanKernels.SsdArgs on = new ScanKernels.SsdArgs(leaf(s.x(), leaves), leaf(s.dt(), leaves), leaf(s.A(), leaves),
                leaf(s.B(), leaves), leaf(s.C(), leaves), leaf(s.D(), leaves), leaf(s.initialState(), leaves), s.chunk());
        try (var grad = GradMode.enabled()) {
            ScanKernels.SsdResult r = forward(on);
            Tensor loss = null;
            if (gradY != null) loss = r.y().mul(gradY).sum();
            if (gradFinalState != null) {
                Tensor f = r.finalState().mul(gradFinalState).sum();
                loss = loss == null ? f : loss.add(f);
            }
            if (loss != null) loss.backward();
        }
        return new ScanKernels.SsdGrads(gradOf(on.x()), gradOf(on.dt()), gradOf(on.A()), gradOf(on.B()), gradOf(on.C()),
                gradOf(on.D()), gradOf(on.initialState()));
    }

    private static Tensor leaf(Tensor t, List<Tensor> leaves) {
        if (t == null) return null;
        Tensor l = t.detach().requiresGrad(true);
        leaves.add(l);
        return l;
    }

    /** A leaf's gradient, zeros when nothing reached it, null for an absent input. */
    private static Tensor gradOf(Tensor leaf) {
        if (leaf == null) return null;
        return leaf.grad() != null ? leaf.grad() : Tensor.zerosLike(leaf);
    }

    /** exp(cum_l − cum_s) for s ≤ l and 0 above the diagonal: cum (..., T) → (..., T, T). */
    private static Tensor causalDecay(Tensor cum) {
        int t = cum.size(-1);
        Tensor segsum = cum.unsqueeze(-1).sub(cum.unsqueeze(-2));                                         // Σ_{s<k≤l} of the terms
        return segsum.add(Masks.causal(cum.backend(), t, t)).exp();                                       // −∞ above: exp gives 0, and 0 gradient
    }

    /** (batch, L, groups, N) → (batch, L, heads, N), each group repeated for its heads / groups heads. */
    private static Tensor perHead(Tensor t, int heads) {
        int groups = t.size(2);
        if (groups == heads) return t;
        int[] s = t.shape();
        return t.unsqueeze(3).expand(s[0], s[1], groups, heads / groups, s[3]).reshape(s[0], s[1], heads, s[3]);
    }

    /** t (batch, L, …) with zeros after it to length {@code padded} along dim 1. */
    private static Tensor padTime(Tensor t, int padded) {
        if (t.size(1) == padded) return t;
        int[] s = t.shape();
        s[1] = padded - s[1];
        return Tensor.cat(List.of(t, zeros(t, s)), 1);
    }

    private static Tensor zeros(Tensor like, int... shape) {
        return Creation.full(like.backend(), 0, DType.FLOAT32, shape);
    }
}
