package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorOperators;

import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * Float32 transcendental functions on whole vectors, written out as polynomials so they
 * compile to straight-line FMA code (the Vector API's own EXP is a call into a vector math
 * library, about twice as slow here). Used by the activation kernels; accuracy is stated per
 * function, measured against the double-precision reference over the whole float range.
 *
 * <p>erf and erfc share one approximation: erfc(a) = t·P(t)·e^(−a²) with t = 1/(1 + p·a), a ≥ 0
 * (the form of Abramowitz &amp; Stegun 7.1.26 with a degree-9 P, fitted here for relative error
 * 6·10⁻⁹ on [0, 10]); erf near 0 is x·Q(x²) instead, which keeps its relative precision. The
 * factor e^(−a²) is computed from a² split into a rounded part and its exact remainder (by FMA),
 * so the rounding of a² — up to 100·2⁻²⁴ — does not reach the result. In float arithmetic the
 * results are within about 8 ulps of the true value (erfc relative, erf relative).
 */
final class VectorMath {
    private VectorMath() {}

    // e^x: x = n·ln2 + r, |r| ≤ ln2/2; e^r by a degree-6 minimax polynomial (relative error 2·10⁻⁹).
    private static final float LOG2E = 1.44269504088896341f;
    private static final float LN2_HI = 6.9314718246e-01f, LN2_LO = -1.9046543231e-09f;
    /** 1.5·2²³: adding it rounds a float of magnitude below 2²² to an integer, readable from the low bits. */
    private static final float ROUND_MAGIC = 12582912f;
    private static final int ROUND_MAGIC_BITS = Float.floatToRawIntBits(ROUND_MAGIC);
    private static final float E0 = 1.000000001e+00f, E1 = 1.000000036e+00f, E2 = 4.999999244e-01f, E3 = 1.666641977e-01f,
            E4 = 4.166814429e-02f, E5 = 8.374842636e-03f, E6 = 1.384140094e-03f;

    // erfc(a)·e^(a²) = t·P(t), t = 1/(1 + P_SCALE·a); P's coefficients from t⁰ up.
    private static final float P_SCALE = 0.3275911f;
    private static final float P0 = 1.8478113272e-01f, P1 = 1.8575360641e-01f, P2 = 1.6597697195e-01f, P3 = 2.0434111763e-01f,
            P4 = -4.5650525243e-02f, P5 = 4.9239284291e-01f, P6 = -5.4903362078e-01f, P7 = 6.1891079603e-01f,
            P8 = -3.1345751195e-01f, P9 = 5.5985184076e-02f;
    /** erf(x)/x = Q(x²) for |x| &lt; {@link #ERF_SMALL} (relative error 1.4·10⁻⁹). */
    private static final float Q0 = 1.1283791656e+00f, Q1 = -3.7612608676e-01f, Q2 = 1.1282824858e-01f,
            Q3 = -2.6757314472e-02f, Q4 = 4.7182492615e-03f;
    private static final float ERF_SMALL = 0.5f;
    /** erfc(10) ≈ 2·10⁻⁴⁵ is below the smallest float: arguments are clamped here. */
    private static final float ERFC_LIMIT = 10f;

    static final float INV_SQRT_2 = 0.70710678118654752f;
    static final float INV_SQRT_2PI = 0.39894228040143268f;
    /** |x| beyond which e^(−x²/2) is exactly 0 in float (x²/2 &gt; 104): GELU arguments are clamped here. */
    static final float GELU_LIMIT = 15f;
    static final float SQRT_TWO_OVER_PI = 0.7978845608028654f;
    static final float GELU_TANH_CUBIC = 0.044715f;

    /**
     * e^x within 2 ulps; gradual underflow below −87.3 and 0 below −104, +∞ above 88.72, NaN kept.
     * 2ⁿ is applied as two factors 2^⌊n/2⌋·2^⌈n/2⌉, each a normal float, so no bit trick overflows.
     */
    static FloatVector exp(FloatVector x) {
        FloatVector xc = x.max(-104f).min(89f);                       // NaN stays NaN
        FloatVector k = xc.fma(c(LOG2E), c(ROUND_MAGIC));             // n + magic, n = round(x·log2 e)
        FloatVector n = k.sub(ROUND_MAGIC);
        FloatVector r = n.fma(c(-LN2_HI), xc);
        r = n.fma(c(-LN2_LO), r);
        FloatVector p = r.fma(c(E6), c(E5)).fma(r, c(E4)).fma(r, c(E3)).fma(r, c(E2)).fma(r, c(E1)).fma(r, c(E0));
        IntVector ni = k.reinterpretAsInts().sub(ROUND_MAGIC_BITS);
        IntVector n1 = ni.lanewise(VectorOperators.ASHR, 1), n2 = ni.sub(n1);
        return p.mul(pow2(n1)).mul(pow2(n2));
    }

    /** 2ⁿ for −126 ≤ n ≤ 127, from its exponent bits. */
    private static FloatVector pow2(IntVector n) {
        return n.add(127).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
    }

    /** e^(−s·x²) for s = 1 or ½, with x² = hi + lo split exactly (lo by FMA) and e^(−s·lo) ≈ 1 − s·lo. */
    private static FloatVector expNegSquare(FloatVector x, float s) {
        FloatVector hi = x.mul(x);
        FloatVector lo = x.fma(x, hi.neg());
        return exp(hi.mul(-s)).mul(lo.mul(-s).add(1f));
    }

    /** t·P(t) = erfc(a)·e^(a²) for 0 ≤ a (a ≤ {@link #ERFC_LIMIT} for accuracy; larger a is harmless). */
    private static FloatVector erfcScaled(FloatVector a) {
        FloatVector t = one().div(a.fma(c(P_SCALE), one()));
        FloatVector p = t.fma(c(P9), c(P8)).fma(t, c(P7)).fma(t, c(P6)).fma(t, c(P5)).fma(t, c(P4))
                .fma(t, c(P3)).fma(t, c(P2)).fma(t, c(P1)).fma(t, c(P0));
        return t.mul(p);
    }

    /** erf(x): x·Q(x²) near 0, ±(1 − erfc|x|) elsewhere; erf(±∞) = ±1, NaN kept. */
    static FloatVector erf(FloatVector x) {
        FloatVector x2 = x.mul(x);
        FloatVector small = x.mul(x2.fma(c(Q4), c(Q3)).fma(x2, c(Q2)).fma(x2, c(Q1)).fma(x2, c(Q0)));
        FloatVector a = x.abs().min(ERFC_LIMIT);
        FloatVector big = one().sub(erfcScaled(a).mul(expNegSquare(a, 1f)));
        big = big.blend(big.neg(), x.lt(0f));
        return big.blend(small, x.abs().lt(ERF_SMALL));
    }

    /** GELU(x) = x·Φ(x) = ½x·erfc(−x/√2), relative error a few ulps for every x (no cancellation for x ≪ 0). */
    static FloatVector geluErf(FloatVector x) {
        FloatVector xc = x.max(-GELU_LIMIT).min(GELU_LIMIT);
        FloatVector e = expNegSquare(xc, 0.5f);
        FloatVector tail = erfcScaled(xc.abs().mul(INV_SQRT_2)).mul(e);          // 2Φ(−|x|)
        FloatVector twoCdf = tail.blend(c(2f).sub(tail), x.compare(VectorOperators.GT, 0f));               // 2Φ(x)
        return x.mul(0.5f).mul(twoCdf);
    }

    /** d GELU/dx = Φ(x) + x·φ(x), one exponential shared by both terms. */
    static FloatVector geluErfGrad(FloatVector x) {
        FloatVector xc = x.max(-GELU_LIMIT).min(GELU_LIMIT);
        FloatVector e = expNegSquare(xc, 0.5f);
        FloatVector halfTail = erfcScaled(xc.abs().mul(INV_SQRT_2)).mul(e).mul(0.5f);   // Φ(−|x|)
        FloatVector cdf = halfTail.blend(one().sub(halfTail), x.compare(VectorOperators.GT, 0f));
        return x.mul(e.mul(INV_SQRT_2PI)).add(cdf);
    }

    /** d/dx of 0.5x(1 + tanh u), u = √(2/π)(x + 0.044715x³): s + 2x·s(1−s)·u' with s = sigmoid(2u). */
    static FloatVector geluTanhGrad(FloatVector x) {
        FloatVector x2 = x.mul(x);
        FloatVector u2 = x2.fma(c(GELU_TANH_CUBIC), one()).mul(x).mul(2f * SQRT_TWO_OVER_PI);
        FloatVector du = x2.fma(c(3f * GELU_TANH_CUBIC), one()).mul(SQRT_TWO_OVER_PI);
        FloatVector e = exp(u2.abs().neg());
        FloatVector r = one().div(e.add(1f));
        FloatVector er = e.mul(r);
        var neg = u2.lt(0f);
        FloatVector s = r.blend(er, neg), oneMinusS = er.blend(r, neg);
        return x.mul(2f).mul(s).mul(oneMinusS).mul(du).add(s);
    }

    /** d SiLU/dx = s·(1 + x(1 − s)), s = sigmoid(x), from one exponential e^(−|x|). */
    static FloatVector siluGrad(FloatVector x) {
        FloatVector e = exp(x.abs().neg());
        FloatVector r = one().div(e.add(1f));
        FloatVector er = e.mul(r);
        var neg = x.lt(0f);
        FloatVector s = r.blend(er, neg), oneMinusS = er.blend(r, neg);
        return s.mul(x.mul(oneMinusS).add(1f));
    }

    /** 1/(1+e^−x) without overflow: with e = e^−|x|, 1/(1+e) for x ≥ 0 and e/(1+e) below. */
    static FloatVector sigmoid(FloatVector x) {
        FloatVector e = exp(x.abs().neg());
        FloatVector r = one().div(e.add(1f));
        return r.blend(e.mul(r), x.lt(0f));
    }

    private static FloatVector one() {
        return FloatVector.broadcast(S, 1f);
    }

    private static FloatVector c(float v) {
        return FloatVector.broadcast(S, v);
    }
}
