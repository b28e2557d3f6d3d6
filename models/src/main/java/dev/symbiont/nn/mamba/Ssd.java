package dev.symbiont.nn.mamba;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.scan.Scans;

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
 * The chunked form is the scan family's op {@link Scans#ssdChunked}: the reference composes it of
 * tensor ops (cumsum, exp, additive causal masks, batched matmul) and takes the backward by
 * autograd; a backend with its own kernels (cuda) runs it in mamba-ssm's five stages. A sequence
 * that is not a multiple of Q is padded with Δ = 0, x = 0 (decay 1, no input), which leaves the
 * outputs and the final state unchanged.
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
        Scans.SsdOutput o = Scans.ssdChunked(x, dt, a, b, c, d, initialState, chunk);
        return new Output(o.y(), o.finalState());
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

    /** (batch, L, groups, N) → (batch, L, heads, N), each group repeated for its heads / groups heads. */
    private static Tensor perHead(Tensor t, int heads) {
        int groups = t.size(2);
        if (groups == heads) return t;
        int[] s = t.shape();
        return t.unsqueeze(3).expand(s[0], s[1], groups, heads / groups, s[3]).reshape(s[0], s[1], heads, s[3]);
    }

    /** Throws, naming the op and every shape, unless the inputs are those {@link #chunked} documents. */
    static void check(Tensor x, Tensor dt, Tensor a, Tensor b, Tensor c, Tensor d, Tensor h0) {
        Scans.checkSsd("ssd", x, dt, a, b, c, d, h0);
    }
}
