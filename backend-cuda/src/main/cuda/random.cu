// Philox4x32-10 random numbers, bit-identical to dev.symbiont.core.backend.Philox: the same
// counter/key schedule, the same word -> float conversions, and for NORMAL the same Box-Muller in
// double with ports of fdlibm's log, sin and cos (java.lang.FdLibm, which StrictMath runs).
// build-kernels.sh compiles this file with -fmad=false: a fused multiply-add would round once
// where Java rounds twice and change the bits. Only the argument ranges Philox produces are
// ported: log of u1 in (2^-32, 1] (normal numbers), sin/cos of theta in [0, 2pi).
#include "common.cuh"

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

// Block b of seed's stream: Philox4x32-10 of counter (lo(b), hi(b), 0, 0) under key (lo(seed), hi(seed)).
__device__ __forceinline__ uint4 philox_block(unsigned long long seed, unsigned long long b) {
    unsigned c0 = (unsigned)b, c1 = (unsigned)(b >> 32), c2 = 0, c3 = 0;
    unsigned k0 = (unsigned)seed, k1 = (unsigned)(seed >> 32);
    for (int round = 0; round < 10; ++round) {
        if (round > 0) { k0 += PHILOX_W0; k1 += PHILOX_W1; }
        unsigned hi0 = __umulhi(PHILOX_M0, c0), lo0 = PHILOX_M0 * c0;
        unsigned hi1 = __umulhi(PHILOX_M1, c2), lo1 = PHILOX_M1 * c2;
        unsigned n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
        c1 = lo1;
        c3 = lo0;
        c0 = n0;
        c2 = n2;
    }
    return make_uint4(c0, c1, c2, c3);
}

__device__ __forceinline__ int hi_word(double x) { return (int)(__double_as_longlong(x) >> 32); }
__device__ __forceinline__ double with_hi_word(double x, int hi) {
    return __longlong_as_double(((long long)hi << 32) | (unsigned)(__double_as_longlong(x)));
}

// fdlibm __ieee754_log for a positive normal x (FdLibm.Log.compute).
__device__ double fdlibm_log(double x) {
    const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10,
                 Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01, Lg3 = 2.857142874366239149e-01,
                 Lg4 = 2.222219843214978396e-01, Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01,
                 Lg7 = 1.479819860511658591e-01;
    int hx = hi_word(x);
    int k = (hx >> 20) - 1023;
    hx &= 0x000fffff;
    int i = (hx + 0x95f64) & 0x100000;
    x = with_hi_word(x, hx | (i ^ 0x3ff00000));  // normalise x or x/2
    k += i >> 20;
    double f = x - 1.0;
    double dk = (double)k;
    if ((0x000fffff & (2 + hx)) < 3) {  // |f| < 2^-20
        if (f == 0.0) return k == 0 ? 0.0 : dk * ln2_hi + dk * ln2_lo;
        double R = f * f * (0.5 - 0.33333333333333333 * f);
        return k == 0 ? f - R : dk * ln2_hi - ((R - dk * ln2_lo) - f);
    }
    double s = f / (2.0 + f);
    double z = s * s;
    i = hx - 0x6147a;
    double w = z * z;
    int j = 0x6b851 - hx;
    double t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
    double t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
    i |= j;
    double R = t2 + t1;
    if (i > 0) {
        double hfsq = 0.5 * f * f;
        return k == 0 ? f - (hfsq - s * (hfsq + R)) : dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f);
    }
    return k == 0 ? f - s * (f - R) : dk * ln2_hi - ((s * (f - R) - dk * ln2_lo) - f);
}

// fdlibm __kernel_sin(x, y, iy) for |x| <= pi/4.
__device__ double fdlibm_kernel_sin(double x, double y, int iy) {
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    int ix = hi_word(x) & 0x7fffffff;
    if (ix < 0x3e400000 && (int)x == 0) return x;  // |x| < 2^-27
    double z = x * x;
    double v = z * x;
    double r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    if (iy == 0) return x + v * (S1 + z * r);
    return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}

// fdlibm __kernel_cos(x, y) for |x| <= pi/4.
__device__ double fdlibm_kernel_cos(double x, double y) {
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    int ix = hi_word(x) & 0x7fffffff;
    if (ix < 0x3e400000 && (int)x == 0) return 1.0;  // |x| < 2^-27
    double z = x * x;
    double r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    if (ix < 0x3fd33333) return 1.0 - (0.5 * z - (z * r - x * y));  // |x| < 0.3
    double qx = ix > 0x3fe90000 ? 0.28125 : __hiloint2double(ix - 0x00200000, 0);
    double hz = 0.5 * z - qx;
    double a = 1.0 - qx;
    return a - (hz - (z * r - x * y));
}

// fdlibm __ieee754_rem_pio2 for 0 <= x <= 2^19 * pi/2: x = n * pi/2 + (y0 + y1), returns n.
__device__ int fdlibm_rem_pio2(double x, double& y0, double& y1) {
    const double invpio2 = 6.36619772367581382433e-01, pio2_1 = 1.57079632673412561417e+00,
                 pio2_1t = 6.07710050650619224932e-11, pio2_2 = 6.07710050630396597660e-11,
                 pio2_2t = 2.02226624879595063154e-21, pio2_3 = 2.02226624871116645580e-21,
                 pio2_3t = 8.47842766036889956997e-32;
    int ix = hi_word(x) & 0x7fffffff;
    if (ix < 0x4002d97c) {  // x < 3pi/4: n = 1
        double z = x - pio2_1;
        if (ix != 0x3ff921fb) {
            y0 = z - pio2_1t;
            y1 = (z - y0) - pio2_1t;
        } else {  // near pi/2: 33+33+53 bit pi
            z -= pio2_2;
            y0 = z - pio2_2t;
            y1 = (z - y0) - pio2_2t;
        }
        return 1;
    }
    int n = (int)(x * invpio2 + 0.5);
    double fn = (double)n;
    double r = x - fn * pio2_1;
    double w = fn * pio2_1t;
    // npio2_hw[n - 1] for the n this range reaches: the high word of n * pi/2
    const int npio2_hw[4] = {0x3FF921FB, 0x400921FB, 0x4012D97C, 0x401921FB};
    if (n <= 4 && ix != npio2_hw[n - 1]) {
        y0 = r - w;
    } else {
        int j = ix >> 20;
        y0 = r - w;
        int i = j - ((hi_word(y0) >> 20) & 0x7ff);
        if (i > 16) {
            double t = r;
            w = fn * pio2_2;
            r = t - w;
            w = fn * pio2_2t - ((t - r) - w);
            y0 = r - w;
            i = j - ((hi_word(y0) >> 20) & 0x7ff);
            if (i > 49) {
                t = r;
                w = fn * pio2_3;
                r = t - w;
                w = fn * pio2_3t - ((t - r) - w);
                y0 = r - w;
            }
        }
    }
    y1 = (r - y0) - w;
    return n;
}

// StrictMath.sin (cos when want_cos) of theta in [0, 2pi).
__device__ double fdlibm_sincos(double theta, bool want_cos) {
    int ix = hi_word(theta) & 0x7fffffff;
    if (ix <= 0x3fe921fb) return want_cos ? fdlibm_kernel_cos(theta, 0.0) : fdlibm_kernel_sin(theta, 0.0, 0);
    double y0, y1;
    int n = fdlibm_rem_pio2(theta, y0, y1) + (want_cos ? 1 : 0);  // cos(x) = sin(x + pi/2)
    switch (n & 3) {
        case 0: return fdlibm_kernel_sin(y0, y1, 1);
        case 1: return fdlibm_kernel_cos(y0, y1);
        case 2: return -fdlibm_kernel_sin(y0, y1, 1);
        default: return -fdlibm_kernel_cos(y0, y1);
    }
}

__device__ __forceinline__ unsigned word(const uint4& w, int lane) {
    return lane == 0 ? w.x : lane == 1 ? w.y : lane == 2 ? w.z : w.w;
}

// One thread per Philox block: element i comes from block offset + i / 4, word i % 4, (w >>> 8) * 2^-24.
extern "C" __global__ void random_uniform_f32(float* out, long long n, unsigned long long seed, unsigned long long offset) {
    GRID_STRIDE(b, (n + 3) / 4) {
        uint4 w = philox_block(seed, offset + b);
        for (int lane = 0; lane < 4 && 4 * b + lane < n; ++lane) {
            out[4 * b + lane] = (float)(word(w, lane) >> 8) * 0x1.0p-24f;
        }
    }
}

// Box-Muller on word pairs (w0, w1) -> elements 0 and 1, (w2, w3) -> 2 and 3, as Philox.fill.
extern "C" __global__ void random_normal_f32(float* out, long long n, unsigned long long seed, unsigned long long offset) {
    const double two_pi = 6.283185307179586;  // 2 * Math.PI, exactly as Java computes it
    GRID_STRIDE(b, (n + 3) / 4) {
        uint4 w = philox_block(seed, offset + b);
        for (int pair = 0; pair < 4 && 4 * b + pair < n; pair += 2) {
            double u1 = ((double)word(w, pair) + 1.0) * 0x1.0p-32;
            double r = sqrt(0.0 - 2.0 * fdlibm_log(u1));
            double theta = two_pi * ((double)word(w, pair + 1) * 0x1.0p-32);
            out[4 * b + pair] = (float)(r * fdlibm_sincos(theta, true));
            if (4 * b + pair + 1 < n) out[4 * b + pair + 1] = (float)(r * fdlibm_sincos(theta, false));
        }
    }
}
