// What the tensor-core attention kernels (attention_mma.cu, attention_mma_backward.cu) share:
// the block shape, the input dtype's mma.sync and roundings, and the fragment and tile helpers.
// Fragments are mma.sync.m16n8k16's (PTX ISA, "Matrix Fragments for mma.m16n8k16"): with
// g = lane / 4 and t = lane % 4, A registers hold rows g and g + 8, columns 2t, 2t + 1 (and + 8);
// B registers rows (k) 2t, 2t + 1 (and + 8) of column g; accumulators rows g and g + 8, columns
// 2t and 2t + 1. Tiles in shared memory are 16-bit elements in rows padded by PAD elements (16
// bytes), so that the fragment loads of a warp's lanes fall in distinct banks.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "attention.cuh"
#include "halfs.cuh"

#define WARPS 4
#define THREADS (WARPS * 32)
#define PAD 8

// The input dtype: one element rounded from float32 (the bits of dev.symbiont.core.Half), a pair
// rounded (P and dS for the second products) and its mma.sync with float32 accumulators.
#define HALF_TYPE(NAME, PAIR, ROUND_PAIR, ROUND_ONE, PTX)                                                        \
    struct NAME {                                                                                                \
        static __device__ __forceinline__ unsigned short bits(unsigned short h) { return h; }                   \
        static __device__ __forceinline__ unsigned short bits(float value) { return ROUND_ONE(value); }         \
        static __device__ __forceinline__ uint32_t pack(float lo, float hi) {                                   \
            PAIR h = ROUND_PAIR(lo, hi);                                                                         \
            return *(uint32_t*)&h;                                                                               \
        }                                                                                                        \
        static __device__ __forceinline__ void mma(float* d, const uint32_t* a, uint32_t b0, uint32_t b1) {    \
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." PTX "." PTX ".f32 "                          \
                         "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"                                \
                         : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                         \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));                        \
        }                                                                                                        \
    };

HALF_TYPE(Bf16, __nv_bfloat162, __floats2bfloat162_rn, float_to_bf16, "bf16")
HALF_TYPE(F16, __half2, __floats2half2_rn, float_to_f16, "f16")

// Two adjacent 16-bit elements as one fragment register (the lower index in the low half).
__device__ __forceinline__ uint32_t pair_at(const unsigned short* p) { return *(const uint32_t*)p; }

// rows [row0, row0 + ROWS) of a (seq, d) matrix of 16-bit or float32 elements (rounded to T) into
// tile[r * stride + x] (transposed: tile[x * stride + r]); rows past `rows` and columns past d
// read zero.
template <int ROWS, int DMAX, bool TRANSPOSE, typename T, typename S>
__device__ __forceinline__ void load_tile(unsigned short* tile, int stride, const S* base, long long seqStride,
                                          long long dimStride, int row0, int rows, int d) {
    for (int idx = threadIdx.x; idx < ROWS * DMAX; idx += THREADS) {
        int r = idx / DMAX, x = idx % DMAX, row = row0 + r;
        unsigned short value = row < rows && x < d ? T::bits(base[(long long)row * seqStride + (long long)x * dimStride]) : 0;
        tile[TRANSPOSE ? x * stride + r : r * stride + x] = value;
    }
}

// acc[n] (n < N) += A · B for a warp's 16 rows: A's rows a0 .. a0 + 15 and B's columns (rows of
// the tile b) b0 .. b0 + 8N - 1, both tiles row-major over the DMAX-wide inner dimension.
template <int DMAX, int N, typename T>
__device__ __forceinline__ void product_rows(float (*acc)[4], const unsigned short* a, int a0, const unsigned short* b, int b0,
                                             int stride) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int k0 = 0; k0 < DMAX; k0 += 16) {
        uint32_t frag[4];
        frag[0] = pair_at(&a[(a0 + g) * stride + k0 + 2 * t]);
        frag[1] = pair_at(&a[(a0 + g + 8) * stride + k0 + 2 * t]);
        frag[2] = pair_at(&a[(a0 + g) * stride + k0 + 8 + 2 * t]);
        frag[3] = pair_at(&a[(a0 + g + 8) * stride + k0 + 8 + 2 * t]);
#pragma unroll
        for (int n = 0; n < N; ++n) {
            const unsigned short* col = &b[(b0 + n * 8 + g) * stride + k0 + 2 * t];
            T::mma(acc[n], frag, pair_at(col), pair_at(col + 8));
        }
    }
}

// The A fragment of a 16 x 16 operand from the accumulators of its two 8-column halves, rounded
// to T: an accumulator's rows and column pairs are those of the A fragment.
template <typename T>
__device__ __forceinline__ void pack_fragment(uint32_t* a, const float* left, const float* right) {
    a[0] = T::pack(left[0], left[1]);
    a[1] = T::pack(left[2], left[3]);
    a[2] = T::pack(right[0], right[1]);
    a[3] = T::pack(right[2], right[3]);
}

// acc[n] (n < DMAX / 8) += A · X[k0 .. k0 + 15][0 .. DMAX) for a row-major tile X: B fragments
// are column pairs of X, which ldmatrix.trans gathers from X's rows (two 8-column slices a call:
// lanes 0-15 address rows k0 .. k0 + 15 at column n, lanes 16-31 the same rows at column n + 8).
template <int DMAX, typename T>
__device__ __forceinline__ void accumulate_times_rows(float (*acc)[4], const uint32_t* a, const unsigned short* x, int k0,
                                                      int stride) {
    const int lane = threadIdx.x % 32;
#pragma unroll
    for (int n = 0; n < DMAX / 8; n += 2) {
        uint32_t b[4];
        uint32_t at = (uint32_t)__cvta_generic_to_shared(&x[(k0 + (lane & 15)) * stride + n * 8 + (lane >> 4) * 8]);
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                     : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
                     : "r"(at));
        T::mma(acc[n], a, b[0], b[1]);
        T::mma(acc[n + 1], a, b[2], b[3]);
    }
}

// row[x * dimStride] = acc * factor for accumulator row r (0: row g, 1: row g + 8) of this thread,
// the columns 2t, 2t + 1 of each 8-column slice below d.
template <int DMAX>
__device__ __forceinline__ void store_row(float* row, long long dimStride, const float (*acc)[4], int r, float factor, int d) {
    const int t = threadIdx.x % 4;
#pragma unroll
    for (int n = 0; n < DMAX / 8; ++n) {
#pragma unroll
        for (int c = 0; c < 2; ++c) {
            int x = n * 8 + 2 * t + c;
            if (x < d) row[(long long)x * dimStride] = acc[n][2 * r + c] * factor;
        }
    }
}
