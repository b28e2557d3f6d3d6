// Unary, binary and where over float32, each with the reference backend's formula
// (dev.symbiont.core.reference.ReferenceElementwise): the transcendental ones in double and
// rounded once, so they agree with the reference to the last bit nearly everywhere. Op codes
// are fixed here and in CudaElementwise.code(...).
#include "common.cuh"
#include "halfs.cuh"
#include "javamath.cuh"

enum Unary { NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RELU, GELU_ERF, GELU_TANH, SILU, SOFTPLUS, ERF, SIGN,
             RECIPROCAL, SQUARE };
enum Binary { ADD, SUB, MUL, DIV, POW, MAXIMUM, MINIMUM, EQ, NE, LT, LE, GT, GE };

__device__ __forceinline__ double sigmoid(double x) {
    if (x >= 0) return 1.0 / (1.0 + exp(-x));
    double e = exp(x);
    return e / (1.0 + e);
}

__device__ float unary_op(int op, float x) {
    switch (op) {
        case NEG: return -x;
        case ABS: return fabsf(x);
        case EXP: return (float)exp((double)x);
        case LOG: return (float)log((double)x);
        case SQRT: return (float)sqrt((double)x);
        case RSQRT: return (float)(1.0 / sqrt((double)x));
        case TANH: return (float)tanh((double)x);
        case SIGMOID: return (float)sigmoid(x);
        case RELU: return isnan(x) ? x : (x > 0.0f ? x : 0.0f);
        case GELU_ERF: return (float)(0.5 * x * erfc(-x * 0.7071067811865476));
        case GELU_TANH: {
            double d = x;
            return (float)(d * sigmoid(2 * 0.7978845608028654 * (d + 0.044715 * d * d * d)));
        }
        case SILU: return (float)(x * sigmoid(x));
        case SOFTPLUS: return x > 20.0f ? x : (float)log1p(exp((double)x));
        case ERF: return (float)erf((double)x);
        case SIGN: return x > 0 ? 1.0f : x < 0 ? -1.0f : 0.0f;
        case RECIPROCAL: return 1.0f / x;
        case SQUARE: return x * x;
    }
    return __int_as_float(0x7fc00000);
}

// Java's Math.pow differs from C's pow where the exponent is NaN or |base| = 1 with an infinite
// exponent: NaN there, as the reference gives.
__device__ __forceinline__ float java_pow(float a, float b) {
    if (isnan(b) || (fabsf(a) == 1.0f && isinf(b))) return __int_as_float(0x7fc00000);
    return (float)pow((double)a, (double)b);
}

__device__ float binary_op(int op, float a, float b) {
    switch (op) {
        case ADD: return __fadd_rn(a, b);
        case SUB: return __fsub_rn(a, b);
        case MUL: return __fmul_rn(a, b);
        case DIV: return __fdiv_rn(a, b);
        case POW: return java_pow(a, b);
        case MAXIMUM: return java_max(a, b);
        case MINIMUM: return java_min(a, b);
        case EQ: return a == b ? 1.0f : 0.0f;
        case NE: return a != b ? 1.0f : 0.0f;
        case LT: return a < b ? 1.0f : 0.0f;
        case LE: return a <= b ? 1.0f : 0.0f;
        case GT: return a > b ? 1.0f : 0.0f;
        case GE: return a >= b ? 1.0f : 0.0f;
    }
    return __int_as_float(0x7fc00000);
}

extern "C" __global__ void unary_f32(float* __restrict__ out, const float* __restrict__ x, Strided s, long long n, int op) {
    GRID_STRIDE(i, n) out[i] = unary_op(op, x[strided_offset(s, i)]);
}

extern "C" __global__ void binary_f32(float* __restrict__ out, const float* __restrict__ a, Strided sa,
                                      const float* __restrict__ b, Strided sb, long long n, int op) {
    GRID_STRIDE(i, n) out[i] = binary_op(op, a[strided_offset(sa, i)], b[strided_offset(sb, i)]);
}

// dst (through d) += src (through s); the host copies src first when the two share a buffer.
extern "C" __global__ void add_into_f32(float* __restrict__ dst, Strided d, const float* __restrict__ src, Strided s,
                                        long long n) {
    GRID_STRIDE(i, n) {
        long long o = strided_offset(d, i);
        dst[o] = __fadd_rn(dst[o], src[strided_offset(s, i)]);
    }
}

// where(condition, a, b): condition of any dtype, non-zero (NaN included) is true.
#define WHERE(NAME, TC, TRUTH)                                                                          \
    extern "C" __global__ void NAME(float* __restrict__ out, const TC* __restrict__ c, Strided sc,       \
                                    const float* __restrict__ a, Strided sa, const float* __restrict__ b, \
                                    Strided sb, long long n) {                                           \
        GRID_STRIDE(i, n) {                                                                              \
            TC v = c[strided_offset(sc, i)];                                                             \
            out[i] = (TRUTH) ? a[strided_offset(sa, i)] : b[strided_offset(sb, i)];                      \
        }                                                                                                \
    }

WHERE(where_f32, float, v != 0.0f)  // NaN != 0 holds
WHERE(where_i32, int, v != 0)
WHERE(where_i64, long long, v != 0)
WHERE(where_bf16, unsigned short, (v & 0x7fffu) != 0)
WHERE(where_f16, unsigned short, (v & 0x7fffu) != 0)
