package dev.symbiont.nn.mamba;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.scan.Scans;

/**
 * Mamba-2's SSD as a selective scan: the recurrence {@link Ssd#chunked} computes in matrix
 * products is, per head h with its P channels, Mamba-1's selective scan with a scalar A and Δ
 * shared by the head's channels (Dao &amp; Gu 2024, §3: SSD is an SSM with scalar-times-identity A):
 * <pre>
 *   h_t = exp(Δ_{t,h}·A_h)·h_{t−1} + Δ_{t,h}·x_t B_tᵀ,   y_t = h_t C_t + D_h·x_t
 *   = selective_scan(u = x (batch, heads·P, L), delta = Δ repeated over P, A = A_h repeated to (heads·P, N),
 *                    B, C grouped (batch, G, N, L), D repeated over P, no z, no bias, no softplus)
 * </pre>
 * Channel h·P + i reads group (h·P + i) / (heads·P / G) = h / (heads / G), as {@link Ssd} does.
 * The backend's fused scan walks L once per channel with its state in registers, where the
 * chunked form materialises (Q, Q) decay masks per chunk and head; autograd gives the backward,
 * the repeats summing the scan's per-channel gradients of Δ, A and D over each head's P channels.
 * Same inputs and outputs as {@link Ssd#chunked}; the final state carries no gradient here (the
 * selective scan's last state has none, as in mamba-ssm), which decoding does not need.
 */
public final class SsdScan {
    private SsdScan() {}

    /**
     * @param x            (batch, L, heads, P)
     * @param dt           Δ after its bias and softplus, (batch, L, heads)
     * @param a            A, (heads), negative
     * @param b            (batch, L, groups, N), groups dividing heads; head h reads group h / (heads / groups)
     * @param c            (batch, L, groups, N)
     * @param d            null or (heads): the skip y += D·x
     * @param initialState null (zeros) or h₀, (batch, heads, P, N); it gets a gradient
     * @return y (batch, L, heads, P) and the final state (batch, heads, P, N), the latter without a gradient
     */
    public static Ssd.Output scan(Tensor x, Tensor dt, Tensor a, Tensor b, Tensor c, Tensor d, Tensor initialState) {
        Ssd.check(x, dt, a, b, c, d, initialState);
        int batch = x.size(0), len = x.size(1), heads = x.size(2), p = x.size(3), n = b.size(3), channels = heads * p;
        Tensor u = x.reshape(batch, len, channels).transpose(1, 2);                                   // (batch, heads·P, L)
        Tensor delta = dt.transpose(1, 2).unsqueeze(2).expand(batch, heads, p, len).reshape(batch, channels, len);
        Tensor aRows = a.reshape(heads, 1, 1).expand(heads, p, n).reshape(channels, n);               // (heads·P, N)
        Tensor skip = d == null ? null : d.reshape(heads, 1).expand(heads, p).reshape(channels);
        Tensor h0 = initialState == null ? null : initialState.reshape(batch, channels, n);
        Scans.ScanOutput o = Scans.selectiveScan(u, delta, aRows, b.permute(0, 2, 3, 1), c.permute(0, 2, 3, 1), skip,
                null, null, false, h0, true);
        Tensor y = o.output().transpose(1, 2).reshape(batch, len, heads, p);
        return new Ssd.Output(y, o.lastState().reshape(batch, heads, p, n));
    }
}
