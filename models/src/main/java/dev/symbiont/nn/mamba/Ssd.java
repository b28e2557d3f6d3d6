package dev.symbiont.nn.mamba;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.ops.Masks;

import java.util.Arrays;
import java.util.List;

/**
 * Mamba-2's state space duality (Dao &amp; Gu 2024, §6 and Listing 1, mamba-ssm's
 * {@code ssd_minimal_discrete}): a selective SSM whose A is one negative scalar per head, so
 * <pre>
 *   h_t = exp(Δ_t·A)·h_{t−1} + Δ_t·x_t B_tᵀ        h (headDim, N) per head
 *   y_t = h_t C_t + D·x_t
 * </pre>
 * computed in chunks of Q positions so that the work is matrix products:
 * <pre>
 *   within a chunk    Y_diag = (L ∘ C Bᵀ)(Δ·X),  L[l, s] = exp(Σ_{s&lt;k≤l} Δ_k A) for s ≤ l, 0 above    (§6.1, attention-like)
 *   a chunk's state   S_c    = Σ_s exp(Σ_{k&gt;s} Δ_k A) Δ_s x_s B_sᵀ                                      (§6.2)
 *   between chunks    H_c    = exp(Σ_{chunk c} Δ A)·H_{c−1} + S_c, H_{−1} = h₀                            (§6.3, the recurrence)
 *   state to output   Y_off[l] = exp(Σ_{k≤l} Δ_k A)·H_{c−1} C_l                                           (§6.4)
 * </pre>
 * The recurrence between chunks is itself one masked product over the chunks (the chunk-level L).
 * Built from tensor ops (cumsum, exp, additive causal masks, batched matmul), so autograd gives
 * the backward. A sequence that is not a multiple of Q is padded with Δ = 0, x = 0 (decay 1,
 * no input), which leaves the outputs and the final state unchanged.
 */
public final class Ssd {
    private Ssd() {}

    /**
     * @param y          (batch, L, heads, headDim)
     * @param finalState h after the last position, (batch, heads, headDim, N)
     */
    public record Output(Tensor y, Tensor finalState) {}

    /**
     * @param x            (batch, L, heads, P)
     * @param dt           Δ after its bias and softplus, (batch, L, heads)
     * @param a            A, (heads), negative
     * @param b            (batch, L, groups, N), groups dividing heads; head h reads group h / (heads / groups)
     * @param c            (batch, L, groups, N)
     * @param d            null or (heads): the skip y += D·x
     * @param initialState null (zeros) or h₀, (batch, heads, P, N)
     * @param chunk        Q, the chunk length (mamba-ssm: 256); L ≤ Q is one chunk of L
     */
    public static Output chunked(Tensor x, Tensor dt, Tensor a, Tensor b, Tensor c, Tensor d, Tensor initialState, int chunk) {
        check(x, dt, a, b, c, d, initialState);
        if (chunk <= 0) throw new IllegalArgumentException("ssd: the chunk length must be at least 1, got " + chunk);
        int batch = x.size(0), len = x.size(1), heads = x.size(2), p = x.size(3), n = b.size(3);
        int q = Math.min(chunk, len), chunks = (len + q - 1) / q, padded = chunks * q;
        // (batch, chunks, heads, Q, ·): one row block per chunk and head.
        Tensor xc = padTime(x, padded).reshape(batch, chunks, q, heads, p).permute(0, 1, 3, 2, 4);
        Tensor bc = padTime(perHead(b, heads), padded).reshape(batch, chunks, q, heads, n).permute(0, 1, 3, 2, 4);
        Tensor cc = padTime(perHead(c, heads), padded).reshape(batch, chunks, q, heads, n).permute(0, 1, 3, 2, 4);
        Tensor dtc = padTime(dt, padded).reshape(batch, chunks, q, heads).permute(0, 1, 3, 2);          // (batch, chunks, heads, Q)
        Tensor cum = dtc.mul(a.reshape(heads, 1)).cumsum(3);                                            // Σ_{k≤l} Δ_k A
        Tensor xdt = xc.mul(dtc.unsqueeze(4));                                                          // Δ·x

        Tensor yDiag = cc.matmul(bc.transpose(3, 4)).mul(causalDecay(cum)).matmul(xdt);               // (batch, chunks, heads, Q, P)

        Tensor total = cum.narrow(3, q - 1, 1);                                                         // Σ_{chunk} Δ A
        Tensor states = xdt.mul(total.sub(cum).exp().unsqueeze(4)).transpose(3, 4).matmul(bc);        // S_c (batch, chunks, heads, P, N)

        Tensor h0 = initialState == null ? zeros(x, batch, 1, heads, p, n) : initialState.unsqueeze(1);
        Tensor start = Tensor.cat(List.of(h0, states), 1).permute(0, 2, 1, 3, 4).reshape(batch, heads, chunks + 1, p * n);
        Tensor sums = Tensor.cat(List.of(zeros(x, batch, 1, heads), total.squeeze(3)), 1).permute(0, 2, 1);  // (batch, heads, chunks + 1)
        Tensor carried = causalDecay(sums.cumsum(2)).matmul(start);                                    // H_{c−1} for c = 0..chunks
        Tensor entering = carried.narrow(2, 0, chunks).reshape(batch, heads, chunks, p, n).permute(0, 2, 1, 3, 4);
        Tensor finalState = carried.select(2, chunks).reshape(batch, heads, p, n);

        Tensor yOff = cc.matmul(entering.transpose(3, 4)).mul(cum.exp().unsqueeze(4));                // (batch, chunks, heads, Q, P)
        Tensor y = yDiag.add(yOff).permute(0, 1, 3, 2, 4).reshape(batch, padded, heads, p);
        if (padded != len) y = y.narrow(1, 0, len);
        if (d != null) y = y.add(x.mul(d.reshape(heads, 1)));
        return new Output(y, finalState);
    }

    /**
     * One position of the recurrence (decoding): h' = exp(Δ·A)·h + Δ·x Bᵀ, y = h' C + D·x.
     *
     * @param h  (batch, heads, P, N)
     * @param x  (batch, heads, P)
     * @param dt (batch, heads), after bias and softplus
     * @param a  (heads)
     * @param b  (batch, groups, N)
     * @param c  (batch, groups, N)
     * @param d  null or (heads)
     * @return y (batch, heads, P) and h' as the final state
     */
    public static Output step(Tensor h, Tensor x, Tensor dt, Tensor a, Tensor b, Tensor c, Tensor d) {
        int heads = x.size(1);
        Tensor bh = perHead(b.unsqueeze(1), heads).squeeze(1), ch = perHead(c.unsqueeze(1), heads).squeeze(1);   // (batch, heads, N)
        Tensor decay = dt.mul(a).exp().unsqueeze(2).unsqueeze(3);                                       // (batch, heads, 1, 1)
        Tensor next = decay.mul(h).add(x.mul(dt.unsqueeze(2)).unsqueeze(3).mul(bh.unsqueeze(2)));     // + Δ·x Bᵀ
        Tensor y = next.matmul(ch.unsqueeze(3)).squeeze(3);                                             // h' C
        if (d != null) y = y.add(x.mul(d.reshape(heads, 1)));
        return new Output(y, next);
    }

    /** exp(cum_l − cum_s) for s ≤ l and 0 above the diagonal: cum (..., T) → (..., T, T). */
    private static Tensor causalDecay(Tensor cum) {
        int t = cum.size(-1);
        Tensor segsum = cum.unsqueeze(-1).sub(cum.unsqueeze(-2));                                       // Σ_{s<k≤l} of the terms
        return segsum.add(Masks.causal(cum.backend(), t, t)).exp();                                     // −∞ above: exp gives 0, and 0 gradient
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
        try (var onIt = Backends.use(like.backend())) {
            return Tensor.zeros(shape);
        }
    }

    /** Throws, naming the op and every shape, unless the inputs are those {@link #chunked} documents. */
    static void check(Tensor x, Tensor dt, Tensor a, Tensor b, Tensor c, Tensor d, Tensor h0) {
        boolean ok = x.dim() == 4 && x.size(1) > 0;
        if (ok) {
            int batch = x.size(0), len = x.size(1), heads = x.size(2), p = x.size(3);
            ok = Arrays.equals(dt.shape(), new int[] {batch, len, heads}) && Arrays.equals(a.shape(), new int[] {heads})
                    && b.dim() == 4 && b.size(0) == batch && b.size(1) == len && b.size(2) > 0 && heads % b.size(2) == 0
                    && Arrays.equals(c.shape(), b.shape()) && (d == null || Arrays.equals(d.shape(), new int[] {heads}))
                    && (h0 == null || Arrays.equals(h0.shape(), new int[] {batch, heads, p, b.size(3)}));
        }
        if (!ok) {
            throw new IllegalArgumentException("ssd: expected x (batch, L ≥ 1, heads, P), dt (batch, L, heads), A (heads), B and C "
                    + "(batch, L, groups, N) with groups dividing heads, D (heads) or none, initial state (batch, heads, P, N) or none; "
                    + "got x " + shape(x) + ", dt " + shape(dt) + ", A " + shape(a) + ", B " + shape(b) + ", C " + shape(c)
                    + ", D " + shape(d) + ", initial state " + shape(h0));
        }
    }

    private static String shape(Tensor t) { return t == null ? "none" : Arrays.toString(t.shape()); }
}
