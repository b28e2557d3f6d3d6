package dev.symbiont.cpu.kernels;

import dev.symbiont.core.backend.UnaryOp;
import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/** {@link ScanMath} on the Vector API: a vector of states at a time (N = 16 is two 256-bit vectors), exp by {@link VectorMath#exp}. */
final class VectorScanMath implements ScanMath {
    static final VectorScanMath INSTANCE = new VectorScanMath();

    private VectorScanMath() {}

    @Override
    public int width(int n) { return (n + L - 1) / L * L; }

    @Override
    public void recurrenceRow(float[] a, int ao, float[] prev, int po, float[] x, int xo, float[] h, int ho, int n) {
        int i = 0;
        for (int bound = S.loopBound(n); i < bound; i += L) {
            FloatVector.fromArray(S, a, ao + i).fma(FloatVector.fromArray(S, prev, po + i), FloatVector.fromArray(S, x, xo + i))
                    .intoArray(h, ho + i);
        }
        ScalarScanMath.INSTANCE.recurrenceRow(a, ao + i, prev, po + i, x, xo + i, h, ho + i, n - i);
    }

    @Override
    public void adjointRow(float[] g, int gOff, float[] c, int cOff, float[] carry, int carryOff, float[] gh, int go,
                           float[] hPrev, int hOff, float[] da, int daOff, int n) {
        int i = 0;
        for (int bound = S.loopBound(n); i < bound; i += L) {
            FloatVector v = FloatVector.fromArray(S, g, gOff + i);
            if (c != null) v = FloatVector.fromArray(S, c, cOff + i).fma(FloatVector.fromArray(S, carry, carryOff + i), v);
            v.intoArray(gh, go + i);
            if (da != null) v.mul(FloatVector.fromArray(S, hPrev, hOff + i)).intoArray(da, daOff + i);
        }
        ScalarScanMath.INSTANCE.adjointRow(g, gOff + i, c, cOff + i, carry, carryOff + i, gh, go + i, hPrev, hOff + i,
                da, daOff + i, n - i);
    }

    @Override
    public void softplus(float[] v, int n) {
        ElementLoops.unary(UnaryOp.SOFTPLUS, v, 0, v, 0, width(n));
    }

    @Override
    public float advance(ScanScratch x, int from, int to, float dt, float dtu, float[] b, int bOffset, float[] c, int cOffset) {
        FloatVector vdt = FloatVector.broadcast(S, dt), vdtu = FloatVector.broadcast(S, dtu), y = FloatVector.zero(S);
        for (int s = 0; s < x.width; s += L) {
            FloatVector decay = VectorMath.exp(FloatVector.fromArray(S, x.a, s).mul(vdt));
            FloatVector h = decay.fma(FloatVector.fromArray(S, x.hs, from + s), FloatVector.fromArray(S, b, bOffset + s).mul(vdtu));
            decay.intoArray(x.decays, from + s);
            h.intoArray(x.hs, to + s);
            y = h.fma(FloatVector.fromArray(S, c, cOffset + s), y);
        }
        return VectorReductions.addLanes(y);
    }

    @Override
    public void adjoint(ScanScratch x, int j, float dt, float gy, float dtu, float[] b, int bOffset, float[] c, int cOffset,
                        float[] dB, int dbOffset, float[] dC, int dcOffset) {
        int w = x.width, prev = j * w, cur = prev + w;
        FloatVector vdt = FloatVector.broadcast(S, dt), vgy = FloatVector.broadcast(S, gy), vdtu = FloatVector.broadcast(S, dtu);
        FloatVector sumDecayA = FloatVector.zero(S), sumAdjointB = FloatVector.zero(S);
        for (int s = 0; s < w; s += L) {
            FloatVector gh = vgy.fma(FloatVector.fromArray(S, c, cOffset + s), FloatVector.fromArray(S, x.dh, s));
            FloatVector decay = FloatVector.fromArray(S, x.decays, prev + s);
            FloatVector dExponent = gh.mul(FloatVector.fromArray(S, x.hs, prev + s)).mul(decay);
            dExponent.fma(vdt, FloatVector.fromArray(S, x.dA, s)).intoArray(x.dA, s);
            sumDecayA = dExponent.fma(FloatVector.fromArray(S, x.a, s), sumDecayA);
            sumAdjointB = gh.fma(FloatVector.fromArray(S, b, bOffset + s), sumAdjointB);
            gh.fma(vdtu, FloatVector.fromArray(S, dB, dbOffset + s)).intoArray(dB, dbOffset + s);
            vgy.fma(FloatVector.fromArray(S, x.hs, cur + s), FloatVector.fromArray(S, dC, dcOffset + s)).intoArray(dC, dcOffset + s);
            decay.mul(gh).intoArray(x.dh, s);
        }
        x.sumDecayA = VectorReductions.addLanes(sumDecayA);
        x.sumAdjointB = VectorReductions.addLanes(sumAdjointB);
    }

    @Override
    public String toString() { return "vector"; }
}
