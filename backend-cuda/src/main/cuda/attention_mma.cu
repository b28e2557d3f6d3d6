// Scaled-dot-product attention forward for bfloat16 and float16 q, k, v on tensor cores:
// FlashAttention-2 (Dao, 2023) as in attention.cu (same semantics, Operand and Problem structs,
// float32 output and logsumexp), with S = Q·Kᵀ and O += P·V on mma.sync.m16n8k16 (float32
// accumulators). P is rounded to the input dtype for the second product, as FlashAttention-2
// does; the row sums use the unrounded P.
//
// Tiling: a block of 4 warps takes BM = 64 query rows, warp w rows 16w .. 16w + 15, against BN =
// 32 keys at a time. Shared memory holds the Q, K and V tiles row-major, each row padded by 8
// elements (16 bytes) so that the fragment loads of a warp's lanes fall in distinct banks; the
// fragments of Q and K are 32-bit loads of two adjacent elements, V's (column pairs) come from
// ldmatrix.trans. Columns past head_dim and rows past sq / sk are zeros. The accumulator
// fragment of S (rows g and g + 8, columns 2t and 2t + 1 of each 8-key slice, g = lane / 4,
// t = lane % 4) is the A fragment of P·V after packing pairs, so P never leaves registers; a row's
// max and sum reduce over the 4 lanes of its quad with shuffles.
#include "attention_mma.cuh"

#define BM 64
#define BN 32

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
    constexpr int QK = DMAX + PAD, NT = DMAX / 8;
    __shared__ __align__(16) unsigned short qt[BM * QK], kt[BN * QK], vt[BN * QK];
    const int bh = blockIdx.x, b = bh / pr.heads, h = bh % pr.heads, kvh = h / (pr.heads / pr.kvHeads);
    const int m0 = blockIdx.y * BM, warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int row0 = warp * 16 + g;                 // this thread's rows of the tile: row0 and row0 + 8
    q += b * qs.batch + h * qs.head;
    k += b * ks.batch + kvh * ks.head;
    v += b * vs.batch + kvh * vs.head;
    if (mask != nullptr) mask += b * ms.batch + h * ms.head;
    load_tile<BM, DMAX, false, T>(qt, QK, q, qs.seq, qs.dim, m0, pr.sq, pr.d);

    float mRow[2] = {NEG_INF, NEG_INF}, lRow[2] = {0.0f, 0.0f}, acc[NT][4];
#pragma unroll
    for (int n = 0; n < NT; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
    const int kEnd = visible_keys_end(pr, m0, BM);
    for (int n0 = 0; n0 < kEnd; n0 += BN) {
        __syncthreads(); // the previous tile's readers are done (and q's tile is stored, first time)
        load_tile<BN, DMAX, false, T>(kt, QK, k, ks.seq, ks.dim, n0, pr.sk, pr.d);
        load_tile<BN, DMAX, false, T>(vt, QK, v, vs.seq, vs.dim, n0, pr.sk, pr.d);
        __syncthreads();
        // S (16 x BN per warp) = Q Kᵀ: A from the Q tile, B (column-major) from the K tile's rows
        float s[BN / 8][4];
#pragma unroll
        for (int n = 0; n < BN / 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
        product_rows<DMAX, BN / 8, T>(s, qt, warp * 16, kt, 0, QK);
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
        // O += P V: the S fragments of keys [16j, 16j + 16) are P's A fragment
#pragma unroll
        for (int j = 0; j < BN / 16; ++j) {
            uint32_t a[4];
            pack_fragment<T>(a, s[2 * j], s[2 * j + 1]);
            accumulate_times_rows<DMAX, T>(acc, a, vt, 16 * j, QK);
        }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int i = m0 + row0 + 8 * r;
        if (i >= pr.sq) continue;
        store_row<DMAX>(out + b * os.batch + h * os.head + (long long)i * os.seq, os.dim, acc, r,
                        lRow[r] > 0.0f ? 1.0f / lRow[r] : 0.0f, pr.d);
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
