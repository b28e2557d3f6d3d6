package dev.symbiont.cpu.kernels;

/** {@link ScanMath} in plain Java, one state at a time. */
final class ScalarScanMath implements ScanMath {
    static final ScalarScanMath INSTANCE = new ScalarScanMath();

    private ScalarScanMath() {}

    @Override
    public int width(int n) { return n; }

    @Override
    public void recurrenceRow(float[] a, int ao, float[] prev, int po, float[] x, int xo, float[] h, int ho, int n) {
        for (int i = 0; i < n; i++) h[ho + i] = a[ao + i] * prev[po + i] + x[xo + i];
    }

    @Override
    public void adjointRow(float[] g, int gOff, float[] c, int cOff, float[] carry, int carryOff, float[] gh, int go,
                           float[] hPrev, int hOff, float[] da, int daOff, int n) {
        for (int i = 0; i < n; i++) {
            float v = c == null ? g[gOff + i] : g[gOff + i] + c[cOff + i] * carry[carryOff + i];
            gh[go + i] = v;
            if (da != null) da[daOff + i] = v * hPrev[hOff + i];
        }
    }

    @Override
    public void softplus(float[] v, int n) {
        for (int i = 0; i < n; i++) v[i] = v[i] > SOFTPLUS_THRESHOLD ? v[i] : (float) Math.log1p(Math.exp(v[i]));
    }

    @Override
    public float advance(ScanScratch x, int from, int to, float dt, float dtu, float[] b, int bOffset, float[] c, int cOffset) {
        float y = 0;
        for (int s = 0; s < x.width; s++) {
            float decay = (float) Math.exp(dt * x.a[s]);
            float h = decay * x.hs[from + s] + dtu * b[bOffset + s];
            x.decays[from + s] = decay;
            x.hs[to + s] = h;
            y += h * c[cOffset + s];
        }
        return y;
    }

    @Override
    public void adjoint(ScanScratch x, int j, float dt, float gy, float dtu, float[] b, int bOffset, float[] c, int cOffset,
                        float[] dB, int dbOffset, float[] dC, int dcOffset) {
        int w = x.width, prev = j * w, cur = prev + w;
        float sumDecayA = 0, sumAdjointB = 0;
        for (int s = 0; s < w; s++) {
            float gh = x.dh[s] + gy * c[cOffset + s], decay = x.decays[prev + s];
            float dExponent = gh * x.hs[prev + s] * decay;       // through ΔA = exp(dt·A)
            x.dA[s] += dExponent * dt;
            sumDecayA += dExponent * x.a[s];
            sumAdjointB += gh * b[bOffset + s];
            dB[dbOffset + s] += gh * dtu;
            dC[dcOffset + s] += gy * x.hs[cur + s];
            x.dh[s] = decay * gh;
        }
        x.sumDecayA = sumDecayA;
        x.sumAdjointB = sumAdjointB;
    }

    @Override
    public String toString() { return "scalar"; }
}
