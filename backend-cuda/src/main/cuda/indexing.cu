// indexSelect, gather and scatterAdd (dev.symbiont.core.reference.ReferenceIndexing). The host
// range-checks the indices first (index_check.cu's check_range_*, raised at the next
// synchronisation); these kernels skip an index out of range, so they never touch memory
// outside x or out.
#include "common.cuh"

// out[i] (contiguous, n elements) = x[base(i) + idx * xStride] with idx the index at position
// j = (i / inner) % k of ids: indexSelect passes the output's extent after dim as inner and the
// index length as k; gather passes inner = 1 and k = n (j = i). base walks the output's shape
// with x's strides and a 0 stride along dim. A copy moves bits, so kernels are per element width.
#define TAKE(NAME, T, TI)                                                                                       \
    extern "C" __global__ void NAME(T* __restrict__ out, const T* __restrict__ x, Strided base, long long xStride, \
                                    const TI* __restrict__ ids, Strided s, long long n, long long size,           \
                                    long long inner, long long k) {                                               \
        GRID_STRIDE(i, n) {                                                                                       \
            long long v = (long long)ids[strided_offset(s, (i / inner) % k)];                                     \
            out[i] = v >= 0 && v < size ? x[strided_offset(base, i) + v * xStride] : (T)0;      \
        }                                                                                                         \
    }

TAKE(take_u16_i32, unsigned short, int)
TAKE(take_u16_i64, unsigned short, long long)
TAKE(take_u32_i32, unsigned int, int)
TAKE(take_u32_i64, unsigned int, long long)
TAKE(take_u64_i32, unsigned long long, int)
TAKE(take_u64_i64, unsigned long long, long long)

// out (a contiguous copy of base) [base(i) + idx * outStride] += src[i] for every index position
// i (n of them, walked by ids' and src's layouts); base walks the index's shape with out's
// strides and a 0 stride along dim. float atomicAdd: repeated indices add in no fixed order.
#define SCATTER_ADD(NAME, TI)                                                                                     \
    extern "C" __global__ void NAME(float* __restrict__ out, Strided base, long long outStride,                    \
                                    const TI* __restrict__ ids, Strided s, const float* __restrict__ src,         \
                                    Strided ss, long long n, long long size) {                                    \
        GRID_STRIDE(i, n) {                                                                                       \
            long long v = (long long)ids[strided_offset(s, i)];                                                   \
            if (v >= 0 && v < size) atomicAdd(out + strided_offset(base, i) + v * outStride, src[strided_offset(ss, i)]); \
        }                                                                                                         \
    }

SCATTER_ADD(scatter_add_f32_i32, int)
SCATTER_ADD(scatter_add_f32_i64, long long)
