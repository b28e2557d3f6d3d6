package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * Float32 transcendental functions on whole vectors, written out as polynomials of IEEE
 * operations, so they give the same bits compiled or interpreted. The Vector API's own EXP
 * calls the JDK's vector math library once compiled but {@code Math.exp} per lane before,
 * and the two differ in the last bit, so a model's first pass would not reproduce its second;
 * its TANH, LOG and LOG1P do the same (measured: TANH changed 607 of 65,536 results between
 * the first call and the compiled loop), so {@link #tanh}, {@link #log} and {@link #log1p}
 * are written out here too.
 * That library exp is about twice as fast as {@link #exp} in isolation (2.7 against 5.3 ns per
 * 16 lanes in cache); inside GELU or softmax the difference is a few percent.
 *
 * <p>erf and erfc share one approximation: erfc(a) = t·P(t)·e^(−a²) with t = 1/(1 + p·a), a ≥ 0
 * (the form of Abramowitz &amp; Stegun 7.1.26 with a degree-9 P, fitted here for relative error
 * 6·10⁻⁹ on [0, 10]); erf near 0 is x·Q(x²) instead, which keeps its relative precision. The
 * factor e^(−a²) is computed from a² split into a rounded part and its exact remainder (by FMA),
 * so the rounding of a² — up to 100·2⁻²⁴ — does not reach the result. Measured against the
 * double-precision reference over the float range: erf within 3 ulps, GELU within 7, the
 * gradients within 4·2⁻²⁴ of max(|f'|, 1).
 *
 * <p>These functions sit at the edge of what C2 compiles as one unit: past its per-compilation
 * node budget ({@code NodeCountInliningCutoff}) calls to our own methods stop inlining, and
 * every vector crossing such a call is boxed on the heap (4–8× slower, and garbage). So every
 * constant is a vector built once (a scalar argument, {@code v.mul(2f)}, expands into a
 * broadcast per use), helpers are called before the long straight-line parts rather than
 * after, and the vector API is called directly for the small steps at the end.
 */
final class VectorMath {
    private VectorMath() {}

    private static FloatVector v(float x) {
        return FloatVector.broadcast(S, x);
    }

    private static final VectorSpecies<Integer> I = S.vectorShape().withLanes(int.class);

    static final FloatVector ZERO = v(0f), ONE = v(1f), TWO = v(2f), HALF = v(0.5f), NEG_HALF = v(-0.5f), NEG_ONE = v(-1f);

    // e^x: x = n·ln2 + r, |r| ≤ ln2/2; e^r by a degree-6 minimax polynomial (relative error 2·10⁻⁹).
    /** Below: e^x rounds to 0; above: it overflows. */
    private static final FloatVector EXP_LO = v(-104f), EXP_HI = v(88.72283f), LOG2E = v(1.44269504088896341f);
    private static final FloatVector INFINITY = v(Float.POSITIVE_INFINITY);
    private static final FloatVector NEG_LN2_HI = v(-6.9314718246e-01f), NEG_LN2_LO = v(1.9046543231e-09f);
    /** 1.5·2²³: adding it rounds a float of magnitude below 2²² to an integer, readable from the low bits. */
    private static final float ROUND_MAGIC = 12582912f;
    private static final FloatVector MAGIC = v(ROUND_MAGIC);
    private static final IntVector MAGIC_BITS = IntVector.broadcast(I, Float.floatToRawIntBits(ROUND_MAGIC));
    private static final IntVector BIAS = IntVector.broadcast(I, 127);
    private static final FloatVector E0 = v(1.000000001e+00f), E1 = v(1.000000036e+00f), E2 = v(4.999999244e-01f),
            E3 = v(1.666641977e-01f), E4 = v(4.166814429e-02f), E5 = v(8.374842636e-03f), E6 = v(1.384140094e-03f);

    // erfc(a)·e^(a²) = t·P(t), t = 1/(1 + P_SCALE·a); P's coefficients from t⁰ up.
    private static final FloatVector P_SCALE = v(0.3275911f);
    private static final FloatVector P0 = v(1.8478113272e-01f), P1 = v(1.8575360641e-01f), P2 = v(1.6597697195e-01f),
            P3 = v(2.0434111763e-01f), P4 = v(-4.5650525243e-02f), P5 = v(4.9239284291e-01f), P6 = v(-5.4903362078e-01f),
            P7 = v(6.1891079603e-01f), P8 = v(-3.1345751195e-01f), P9 = v(5.5985184076e-02f);
    /** erf(x)/x = Q(x²) for |x| &lt; {@link #ERF_SMALL} (relative error 1.4·10⁻⁹). */
    private static final FloatVector Q0 = v(1.1283791656e+00f), Q1 = v(-3.7612608676e-01f), Q2 = v(1.1282824858e-01f),
            Q3 = v(-2.6757314472e-02f), Q4 = v(4.7182492615e-03f);
    private static final FloatVector ERF_SMALL = v(0.5f);
    /** erfc(10) ≈ 2·10⁻⁴⁵ is below the smallest float: arguments are clamped here. */
    private static final FloatVector ERFC_LIMIT = v(10f);

    // tanh x = x + x·z·T(z), z = x², for |x| < 0.625 (Cephes tanhf's coefficients); 1 − 2/(e^2|x| + 1) beyond.
    private static final FloatVector T0 = v(-3.33332819422e-1f), T1 = v(1.33314422036e-1f), T2 = v(-5.37397155531e-2f),
            T3 = v(2.06390887954e-2f), T4 = v(-5.70498872745e-3f), TANH_SMALL = v(0.625f);

    // log x = e·ln2 + log m, m in [√½, √2): log(1 + f) = f − f²/2 + f³·L(f) (Cephes logf's coefficients),
    // ln2 split into 0.693359375 (exact in 10 bits) − 2.12194440e-4.
    private static final FloatVector L0 = v(3.3333331174e-1f), L1 = v(-2.4999993993e-1f), L2 = v(2.0000714765e-1f),
            L3 = v(-1.6668057665e-1f), L4 = v(1.4249322787e-1f), L5 = v(-1.2420140846e-1f), L6 = v(1.1676998740e-1f),
            L7 = v(-1.1514610310e-1f), L8 = v(7.0376836292e-2f);
    private static final FloatVector LN2_HI = v(0.693359375f), LN2_LO = v(-2.12194440e-4f), SQRT_HALF = v(0.70710678118654752f);
    private static final FloatVector NAN = v(Float.NaN), NEG_INFINITY = v(Float.NEGATIVE_INFINITY);
    /** 2²³: subnormal arguments of log are scaled by it first, so their exponent field is a normal one. */
    private static final FloatVector TWO_POW_23 = v(8388608f), SMALLEST_NORMAL = v(Float.MIN_NORMAL);
    private static final IntVector MANTISSA = IntVector.broadcast(I, 0x007fffff), HALF_EXPONENT = IntVector.broadcast(I, 0x3f000000),
            EXPONENT_BIAS = IntVector.broadcast(I, 126), SUBNORMAL_SHIFT = IntVector.broadcast(I, 23);

    private static final FloatVector INV_SQRT_2 = v(0.70710678118654752f), INV_SQRT_2PI = v(0.39894228040143268f);
    /** |x| beyond which e^(−x²/2) is exactly 0 in float (x²/2 &gt; 104): GELU arguments are clamped here. */
    private static final FloatVector GELU_LIMIT = v(15f);
    private static final float SQRT_TWO_OVER_PI = 0.7978845608028654f, GELU_TANH_CUBIC = 0.044715f;
    private static final FloatVector CUBIC = v(GELU_TANH_CUBIC), CUBIC3 = v(3 * GELU_TANH_CUBIC),
            K = v(SQRT_TWO_OVER_PI), TWO_K = v(2 * SQRT_TWO_OVER_PI);

    /**
     * e^x within 2 ulps; gradual underflow below −87.3 and 0 below −104, +∞ above 88.72, NaN
     * kept. x = n·ln2 + r with n from the magic-number rounding; 2ⁿ is applied as two factors
     * 2^⌊n/2⌋·2^⌈n/2⌉ built from exponent bits, each a normal float, so subnormal results are
     * right too. Lanes outside [−104, 88.72] compute garbage that the two blends replace, which
     * is cheaper than clamping the input with Java's NaN-aware min and max.
     */
    static FloatVector exp(FloatVector x) {
        FloatVector k = x.fma(LOG2E, MAGIC);                           // n + magic, n = round(x·log2 e)
        FloatVector n = k.sub(MAGIC);
        FloatVector r = n.fma(NEG_LN2_HI, x);
        r = n.fma(NEG_LN2_LO, r);
        FloatVector p = r.fma(E6, E5).fma(r, E4).fma(r, E3).fma(r, E2).fma(r, E1).fma(r, E0);
        IntVector ni = ((IntVector) k.reinterpretAsInts()).sub(MAGIC_BITS);
        IntVector n1 = ni.lanewise(VectorOperators.ASHR, 1), n2 = ni.sub(n1);
        FloatVector s1 = (FloatVector) n1.add(BIAS).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
        FloatVector s2 = (FloatVector) n2.add(BIAS).lanewise(VectorOperators.LSHL, 23).reinterpretAsFloats();
        return p.mul(s1).mul(s2).blend(ZERO, x.lt(EXP_LO)).blend(INFINITY, x.compare(VectorOperators.GT, EXP_HI));
    }

    /** e^(−s·x²) for s = 1 or ½ (negS = −s), with x² = hi + lo split exactly by FMA and e^(−s·lo) ≈ 1 − s·lo. */
    private static FloatVector expNegSquare(FloatVector x, FloatVector negS) {
        FloatVector hi = x.mul(x);
        FloatVector lo = x.fma(x, hi.neg());
        return exp(hi.mul(negS)).mul(lo.fma(negS, ONE));
    }

    /** t·P(t) = erfc(a)·e^(a²) for 0 ≤ a (accurate up to {@link #ERFC_LIMIT}; larger a is harmless). */
    private static FloatVector erfcScaled(FloatVector a) {
        FloatVector t = ONE.div(a.fma(P_SCALE, ONE));
        FloatVector p = t.fma(P9, P8).fma(t, P7).fma(t, P6).fma(t, P5).fma(t, P4).fma(t, P3).fma(t, P2).fma(t, P1).fma(t, P0);
        return t.mul(p);
    }

    /** erf(x): x·Q(x²) near 0, ±(1 − erfc|x|) elsewhere; erf(±∞) = ±1, NaN kept. */
    static FloatVector erf(FloatVector x) {
        FloatVector a = x.abs().min(ERFC_LIMIT);
        FloatVector big = ONE.sub(erfcScaled(a).mul(expNegSquare(a, NEG_ONE)));
        FloatVector x2 = x.mul(x);
        FloatVector small = x.mul(x2.fma(Q4, Q3).fma(x2, Q2).fma(x2, Q1).fma(x2, Q0));
        big = big.blend(big.neg(), x.lt(ZERO));
        return big.blend(small, x.abs().lt(ERF_SMALL));
    }

    /** GELU(x) = x·Φ(x) = ½x·erfc(−x/√2), relative error a few ulps for every x (no cancellation for x ≪ 0). */
    static FloatVector geluErf(FloatVector x) {
        FloatVector ax = x.abs().min(GELU_LIMIT);                                                   // NaN stays NaN
        FloatVector tail = erfcScaled(ax.mul(INV_SQRT_2)).mul(expNegSquare(ax, NEG_HALF));          // 2Φ(−|x|)
        FloatVector twoCdf = tail.blend(TWO.sub(tail), x.compare(VectorOperators.GT, ZERO));                                 // 2Φ(x)
        return x.mul(HALF).mul(twoCdf);
    }

    /** d GELU/dx = Φ(x) + x·φ(x), one exponential shared by both terms. */
    static FloatVector geluErfGrad(FloatVector x) {
        FloatVector ax = x.abs().min(GELU_LIMIT);
        FloatVector e = expNegSquare(ax, NEG_HALF);
        FloatVector halfTail = erfcScaled(ax.mul(INV_SQRT_2)).mul(e).mul(HALF);                      // Φ(−|x|)
        FloatVector cdf = halfTail.blend(ONE.sub(halfTail), x.compare(VectorOperators.GT, ZERO));
        return x.mul(e.mul(INV_SQRT_2PI)).add(cdf);
    }

    /**
     * {@link #geluErf} into y at {@code yAt} and {@link #geluErfGrad} into d at {@code dAt}, from
     * one erfc and one exponential: the same operations as the two functions in the same order,
     * so both agree with them to the bit (the gradient's Φ(−|x|) is the GELU's 2Φ(−|x|) times ½).
     */
    static void geluErfAndGrad(FloatVector x, float[] y, float[] d, int yAt, int dAt) {
        FloatVector ax = x.abs().min(GELU_LIMIT);
        FloatVector e = expNegSquare(ax, NEG_HALF);
        FloatVector tail = erfcScaled(ax.mul(INV_SQRT_2)).mul(e);                                   // 2Φ(−|x|)
        VectorMask<Float> positive = x.compare(VectorOperators.GT, ZERO);
        x.mul(HALF).mul(tail.blend(TWO.sub(tail), positive)).intoArray(y, yAt);
        FloatVector halfTail = tail.mul(HALF);                                                      // Φ(−|x|)
        x.mul(e.mul(INV_SQRT_2PI)).add(halfTail.blend(ONE.sub(halfTail), positive)).intoArray(d, dAt);
    }

    /** GELU (tanh) as x·sigmoid(2u), u = √(2/π)(x + 0.044715x³): equal to 0.5x(1 + tanh u), precise for x ≪ 0. */
    static FloatVector geluTanh(FloatVector x) {
        FloatVector u2 = x.mul(x).fma(CUBIC, ONE).mul(x).mul(TWO_K);
        return x.mul(sigmoid(u2));
    }

    /** d/dx of 0.5x(1 + tanh u): s + 2x·s(1−s)·u' with s = sigmoid(2u), u' = √(2/π)(1 + 3·0.044715x²). */
    static FloatVector geluTanhGrad(FloatVector x) {
        FloatVector x2 = x.mul(x);
        FloatVector u2 = x2.fma(CUBIC, ONE).mul(x).mul(TWO_K);
        FloatVector du = x2.fma(CUBIC3, ONE).mul(K);
        FloatVector e = exp(u2.abs().neg());
        FloatVector r = ONE.div(e.add(ONE)), er = e.mul(r);
        VectorMask<Float> neg = u2.lt(ZERO);
        FloatVector s = r.blend(er, neg), oneMinusS = er.blend(r, neg);
        return x.mul(TWO).mul(s).mul(oneMinusS).mul(du).add(s);
    }

    /** d SiLU/dx = s·(1 + x(1 − s)), s = sigmoid(x), from one exponential e^(−|x|). */
    static FloatVector siluGrad(FloatVector x) {
        FloatVector e = exp(x.abs().neg());
        FloatVector r = ONE.div(e.add(ONE)), er = e.mul(r);
        VectorMask<Float> neg = x.lt(ZERO);
        FloatVector s = r.blend(er, neg), oneMinusS = er.blend(r, neg);
        return s.mul(x.mul(oneMinusS).add(ONE));
    }

    /** 1/(1+e^−x) without overflow: with e = e^−|x|, 1/(1+e) for x ≥ 0 and e/(1+e) below. */
    static FloatVector sigmoid(FloatVector x) {
        FloatVector e = exp(x.abs().neg());
        FloatVector r = ONE.div(e.add(ONE));
        return r.blend(e.mul(r), x.lt(ZERO));
    }

    /** tanh x within a few ulps: ±1 from |x| ≈ 9 (e^2|x| overflows to ∞ harmlessly), −0 and NaN kept. */
    static FloatVector tanh(FloatVector x) {
        FloatVector a = x.abs();
        FloatVector e = exp(a.add(a));
        FloatVector z = x.mul(x);
        FloatVector small = z.fma(T4, T3).fma(z, T2).fma(z, T1).fma(z, T0).mul(z).fma(x, x);
        FloatVector large = ONE.sub(TWO.div(e.add(ONE)));
        return large.blend(large.neg(), x.lt(ZERO)).blend(small, a.lt(TANH_SMALL)).blend(x, a.eq(ZERO));
    }

    /** ln x within a few ulps, subnormals included: −∞ at ±0, NaN below 0 and for NaN, +∞ at +∞. */
    static FloatVector log(FloatVector x) {
        VectorMask<Float> subnormal = x.lt(SMALLEST_NORMAL);
        FloatVector scaled = x.blend(x.mul(TWO_POW_23), subnormal);
        IntVector bits = (IntVector) scaled.reinterpretAsInts();
        // scaled = m·2^e with m in [½, 1): m takes the exponent field of ½
        IntVector exponent = bits.lanewise(VectorOperators.LSHR, 23).sub(EXPONENT_BIAS)
                .sub(SUBNORMAL_SHIFT, subnormal.cast(I));
        FloatVector m = (FloatVector) bits.and(MANTISSA).or(HALF_EXPONENT).reinterpretAsFloats();
        FloatVector e = (FloatVector) exponent.convert(VectorOperators.I2F, 0);
        // m below √½: use 2m − 1 and e − 1, so that 1 + f stays in [√½, √2)
        VectorMask<Float> low = m.lt(SQRT_HALF);
        FloatVector f = m.add(m, low).sub(ONE);
        e = e.sub(ONE, low);
        FloatVector z = f.mul(f);
        FloatVector y = f.fma(L8, L7).fma(f, L6).fma(f, L5).fma(f, L4).fma(f, L3).fma(f, L2).fma(f, L1).fma(f, L0)
                .mul(f).mul(z);
        y = e.fma(LN2_LO, y);
        y = z.fma(NEG_HALF, y);
        FloatVector r = e.fma(LN2_HI, f.add(y));
        return r.blend(NEG_INFINITY, x.eq(ZERO)).blend(NAN, x.lt(ZERO).or(x.test(VectorOperators.IS_NAN)))
                .blend(INFINITY, x.eq(INFINITY));
    }

    /**
     * ln(1 + u) for u ≥ 0 (softplus's e^−|x|): log(w) corrected by the rounding of w = 1 + u,
     * ((w − 1) − u)/w, which keeps u's precision where 1 + u alone would lose it; +∞ at +∞.
     */
    static FloatVector log1p(FloatVector u) {
        FloatVector w = u.add(ONE);
        FloatVector r = log(w).sub(w.sub(ONE).sub(u).div(w));
        return r.blend(INFINITY, u.eq(INFINITY));
    }
}
