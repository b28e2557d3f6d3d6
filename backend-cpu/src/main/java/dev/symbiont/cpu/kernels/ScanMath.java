package dev.symbiont.cpu.kernels;

/**
 * The scans' inner loops, on the Vector API or in plain Java. For the linear recurrence
 * ({@link LinearRecurrence}): one row of channels of a step, forward or adjoint, a vector of
 * channels at a time (C2 does not vectorise these loops itself: their operands are different
 * arrays or one array a row apart, which it cannot prove apart). For the selective scan: the
 * per-step arithmetic across a channel's N states, on the Vector API
 * ({@link VectorScanMath}, {@link VectorMath#exp}, a vector of states at a time) or in plain
 * Java ({@link ScalarScanMath}, {@code Math.exp}), the twin for JVMs without the incubator
 * module or with {@code -Dsymbiont.cpu.vector=false}. B and C come as (…, L, width) rows, one
 * step's states consecutive, and every row is {@link #width} floats with zero padding, so the
 * vector loops need no tail. This interface touches no Vector-API type, so the scan kernels
 * load either way.
 */
public interface ScanMath {

    /** The Vector-API twin when {@code vector}, else the scalar one. */
    static ScanMath of(boolean vector) {
        return vector ? VectorScanMath.INSTANCE : ScalarScanMath.INSTANCE;
    }

    /**
     * One row of the linear recurrence: h[ho + i] = a[ao + i]·prev[po + i] + x[xo + i] for i &lt; n;
     * prev may be h itself a row away (the rows must not overlap).
     */
    void recurrenceRow(float[] a, int ao, float[] prev, int po, float[] x, int xo, float[] h, int ho, int n);

    /**
     * One row of the linear scan's adjoint, for i &lt; n: gh[go + i] = g[gOff + i] + c[cOff + i]·carry[carryOff + i]
     * (just g when c is null: the last step), then, unless da is null, da[daOff + i] = gh[go + i]·hPrev[hOff + i].
     * gh may be the carry itself at the same offset (updated in place).
     */
    void adjointRow(float[] g, int gOff, float[] c, int cOff, float[] carry, int carryOff, float[] gh, int go,
                    float[] hPrev, int hOff, float[] da, int daOff, int n);

    /** Softplus's threshold, PyTorch's and the reference's: above it softplus(x) = x. */
    float SOFTPLUS_THRESHOLD = 20f;

    /**
     * dt = softplus(x) = log(1 + eˣ) in place for v[0, n); {@code v} holds at least n rounded
     * up to whole vectors, and the lanes past n may change.
     */
    void softplus(float[] v, int n);

    /** The row width for N states: N rounded up to whole vectors (N itself for the scalar twin). */
    int width(int n);

    /**
     * One step of the recurrence from state row {@code from} of {@code x.hs} into row {@code to}
     * (the same row updates in place): ΔA = exp(dt·A) into {@code x.decays} at {@code from},
     * h = ΔA·h + dtu·B, and returns y = Σ h·C.
     *
     * @param dtu dt·u, the step's input scale
     */
    float advance(ScanScratch x, int from, int to, float dt, float dtu, float[] b, int bOffset, float[] c, int cOffset);

    /**
     * The adjoint of step j of a recomputed chunk (state rows j and j + 1, ΔA at j·width): with
     * gh = dh + gy·C, adds dL/dA = gh·h_{j−1}·ΔA·dt to {@code x.dA}, gh·dtu to dB and gy·h to dC,
     * carries dh = ΔA·gh, and leaves Σ gh·h_{j−1}·ΔA·A and Σ gh·B in x's two sums.
     */
    void adjoint(ScanScratch x, int j, float dt, float gy, float dtu, float[] b, int bOffset, float[] c, int cOffset,
                 float[] dB, int dbOffset, float[] dC, int dcOffset);
}
