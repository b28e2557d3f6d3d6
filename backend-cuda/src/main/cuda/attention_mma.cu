// Scaled-dot-product attention forward for bfloat16 and float16 q, k, v on tensor cores:
// FlashAttention-2 (Dao, 2023) as in attention.cu (same semantics, Operand and Problem structs,
// float32 output and logsumexp), with S = Q·Kᵀ and O += P·V on mma.sync.m16n8k16 (float32
// accumulators). P is rounded to the input dtype for the second product, as FlashAttention-2
// does; the row sums use the unrounded P.
//
// Tiling: a block of 4 warps takes BM = 64 query rows, warp w rows 16w .. 16w + 15, against BN =
// 32 keys at a time. Shared memory holds the Q tile and the K tile row-major and the V tile
// transposed (dim-major), each row padded by 8 elements (16 bytes) so that the fragment loads of
// a warp's lanes fall in distinct banks; every fragment register is one 32-bit load of two
// adjacent elements. Columns past head_dim and rows past sq / sk are zeros. The accumulator
// fragment of S (rows g and g + 8, columns 2t and 2t + 1 of each 8-key slice, g = lane / 4,
// t = lane % 4) is the A fragment of P·V after packing pairs, so P never leaves registers; a row's
// max and sum reduce over the 4 lanes of its quad with shuffles.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include "attention.cuh"

#define BM 64
#define BN 32
#define WARPS 4
#define THREADS (WARPS * 32)
#define PAD 8

// The input dtype's pair rounding (P for the second product) and its mma.sync.
#define HALF_TYPE(NAME, PAIR, ROUND_PAIR, PTX)                                                                   \
    struct NAME {                                                                                                \
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

HALF_TYPE(Bf16, __nv_bfloat162, __floats2bfloat162_rn, "bf16")
HALF_TYPE(F16, __half2, __floats2half2_rn, "f16")

// Two adjacent 16-bit elements as one fragment register (the lower index in the low half).
__device__ __forceinline__ uint32_t pair_at(const unsigned short* p) { return *(const uint32_t*)p; }

// rows [row0, row0 + ROWS) of a (seq, d) matrix into tile[r * stride + x] (transposed:
// tile[x * stride + r]); rows past `rows` and columns past d read zero.
template <int ROWS, int DMAX, bool TRANSPOSE>
__device__ __forceinline__ void load_tile(unsigned short* tile, int stride, const unsigned short* base, long long seqStride,
                                          long long dimStride, int row0, int rows, int d) {
    for (int idx = threadIdx.x; idx < ROWS * DMAX; idx += THREADS) {
        int r = idx / DMAX, x = idx % DMAX, row = row0 + r;
        unsigned short value = row < rows && x < d ? base[(long long)row * seqStride + (long long)x * dimStride] : 0;
        tile[TRANSPOSE ? x * stride + r : r * stride + x] = value;
    }
}

// max / sum over the 4 lanes of a quad (the lanes holding one row of an accumulator fragment).
__device__ __forceinline__ float quad_max(float v) {
    v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 1));
    return fmaxf(v, __shfl_xor_sync(0xffffffffu, v, 2));
}

__device__ __forceinline__ float quad_sum(float v) {
    v += __shfl_xor_sync(0xffffffffu, v, 1);
    return v + __shfl_xor_sync(0xffffffffu, v, 2);
}

template <int DMAX, typename T>
__device__ void forward(const unsigned short* q, Operand qs, const unsigned short* k, Operand ks, const unsigned short* v,
                        Operand vs, const float* mask, Operand ms, float* out, Operand os, float* lse, Problem pr) {
    constexpr int QK = DMAX + PAD, VT = BN + PAD, NT = DMAX / 8;
    __shared__ __align__(16) unsigned short qt[BM * QK], kt[BN * QK], vt[DMAX * VT];
    const int bh = blockIdx.x, b = bh / pr.heads, h = bh % pr.heads, kvh = h / (pr.heads / pr.kvHeads);
    const int m0 = blockIdx.y * BM, warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row0 = warp * 16 + g;                 // this thread's rows of the tile: row0 and row0 + 8
    q += b * qs.batch + h * qs.head;
    k += b * ks.batch + kvh * ks.head;
    v += b * vs.batch + kvh * vs.head;
    if (mask != nullptr) mask += b * ms.batch + h * ms.head;
    load_tile<BM, DMAX, false>(qt, QK, q, qs.seq, qs.dim, m0, pr.sq, pr.d);

    float mRow[2] = {NEG_INF, NEG_INF}, lRow[2] = {0.0f, 0.0f}, acc[NT][4];
#pragma unroll
    for (int n = 0; n < NT; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
    // the first key past what any query row of the block sees (causal: the tiles right of it are skipped)
    const int kEnd = pr.causal ? max(0, min(pr.sk, min(m0 + BM, pr.sq) + (pr.sk - pr.sq))) : pr.sk;
    for (int n0 = 0; n0 < kEnd; n0 += BN) {
        __syncthreads(); // the previous tile's readers are done (and q's tile is stored, first time)
        load_tile<BN, DMAX, false>(kt, QK, k, ks.seq, ks.dim, n0, pr.sk, pr.d);
        load_tile<BN, DMAX, true>(vt, VT, v, vs.seq, vs.dim, n0, pr.sk, pr.d);
        __syncthreads();
        // S (16 x BN per warp) = Q Kᵀ: A from the Q tile, B (column-major) from the K tile's rows
        float s[BN / 8][4];
#pragma unroll
        for (int n = 0; n < BN / 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
        for (int k0 = 0; k0 < DMAX; k0 += 16) {
            uint32_t a[4];
            a[0] = pair_at(&qt[row0 * QK + k0 + 2 * t]);
            a[1] = pair_at(&qt[(row0 + 8) * QK + k0 + 2 * t]);
            a[2] = pair_at(&qt[row0 * QK + k0 + 8 + 2 * t]);
            a[3] = pair_at(&qt[(row0 + 8) * QK + k0 + 8 + 2 * t]);
#pragma unroll
            for (int n = 0; n < BN / 8; ++n) {
                const unsigned short* key = &kt[(n * 8 + g) * QK + k0 + 2 * t];
                T::mma(s[n], a, pair_at(key), pair_at(key + 8));
            }
        }
        // scores, the running max and sum of rows row0 (r = 0) and row0 + 8 (r = 1)
        float alpha[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            const int i = m0 + row0 + 8 * r;
            float tileMax = NEG_INF;
#pragma unroll
            for (int n = 0; n < BN / 8; ++n) {
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    float& sv = s[n][2 * r + c];
                    sv = score(sv, pr, mask, ms, i, n0 + n * 8 + 2 * t + c);
                    tileMax = fmaxf(tileMax, sv);
                }
            }
            float mNew = fmaxf(mRow[r], quad_max(tileMax));
            // while every score so far is hidden the shift is 0, so exp gives zeros rather than NaN
            float shift = mNew == NEG_INF ? 0.0f : mNew, sum = 0.0f;
            alpha[r] = expf(mRow[r] - shift);
#pragma unroll
            for (int n = 0; n < BN / 8; ++n) {
#pragma unroll
                for (int c = 0; c < 2; ++c) {
                    float& sv = s[n][2 * r + c];
                    sv = expf(sv - shift);
                    sum += sv;
                }
            }
            lRow[r] = lRow[r] * alpha[r] + quad_sum(sum);
            mRow[r] = mNew;
        }
#pragma unroll
        for (int n = 0; n < NT; ++n) {
            acc[n][0] *= alpha[0];
            acc[n][1] *= alpha[0];
            acc[n][2] *= alpha[1];
            acc[n][3] *= alpha[1];
        }
        // O += P V: the S fragments of keys [16j, 16j + 16) are P's A fragment; B from V's transposed rows
#pragma unroll
        for (int j = 0; j < BN / 16; ++j) {
            uint32_t a[4];
            a[0] = T::pack(s[2 * j][0], s[2 * j][1]);
            a[1] = T::pack(s[2 * j][2], s[2 * j][3]);
            a[2] = T::pack(s[2 * j + 1][0], s[2 * j + 1][1]);
            a[3] = T::pack(s[2 * j + 1][2], s[2 * j + 1][3]);
#pragma unroll
            for (int n = 0; n < NT; ++n) {
                const unsigned short* dim = &vt[(n * 8 + g) * VT + 16 * j + 2 * t];
                T::mma(acc[n], a, pair_at(dim), pair_at(dim + 8));
            }
        }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int i = m0 + row0 + 8 * r;
        if (i >= pr.sq) continue;
        float* row = out + b * os.batch + h * os.head + (long long)i * os.seq;
        const float factor = lRow[r] > 0.0f ? 1.0f / lRow[r] : 0.0f;
#pragma unroll
        for (int n = 0; n < NT; ++n) {
#pragma unroll
            for (int c = 0; c < 2; ++c) {
                int x = n * 8 + 2 * t + c;
                if (x < pr.d) row[(long long)x * os.dim] = acc[n][2 * r + c] * factor;
            }
        }
        if (t == 0) lse[(long long)bh * pr.sq + i] = lRow[r] > 0.0f ? mRow[r] + logf(lRow[r]) : NEG_INF;
    }
}

#define ATTENTION_MMA_KERNEL(DMAX, NAME, TYPE)                                                                   \
    extern "C" __global__ void __launch_bounds__(THREADS) attention_forward_mma_d##DMAX##_##NAME(               \
            const unsigned short* q, Operand qs, const unsigned short* k, Operand ks, const unsigned short* v,  \
            Operand vs, const float* mask, Operand ms, float* out, Operand os, float* lse, Problem pr) {         \
        forward<DMAX, TYPE>(q, qs, k, ks, v, vs, mask, ms, out, os, lse, pr);                                   \
    }

ATTENTION_MMA_KERNEL(64, bf16, Bf16)
ATTENTION_MMA_KERNEL(128, bf16, Bf16)
ATTENTION_MMA_KERNEL(64, f16, F16)
ATTENTION_MMA_KERNEL(128, f16, F16)
