// Scaled-dot-product attention backward for bfloat16 and float16 q, k, v on tensor cores: the
// FlashAttention-2 backward of attention.cu (same semantics, arguments and split into passes:
// attention_rowdot_f32's D = rowsum(dO * O), then dK/dV a block per key tile, then dQ a block per
// query tile, so grouped heads sum without atomics and the result is deterministic) with every
// product on mma.sync.m16n8k16 and float32 accumulators. P = exp(S - logsumexp) and
// dS = P * (dP - D) are computed in float32 from float32 S and dP; like FlashAttention-2, the
// products that take them as an operand (dV += Pᵀ dO, dK += dSᵀ Q, dQ += dS K) round them to the
// input dtype, and the float32 output gradient dO is rounded to it as it is loaded.
//
// dK/dV: a block of 4 warps takes BKV = 64 keys, warp w keys 16w .. 16w + 15, and streams the
// query tiles of BQ = 16 rows of every query head of its kv head (causal: from the first tile
// that sees the block's first key). Each warp computes the transposed scores Sᵀ = K Qᵀ and
// dPᵀ = V dOᵀ of its keys, so that Pᵀ and dSᵀ are the A fragments of dV += Pᵀ dO and
// dK += dSᵀ Q straight from the accumulators. dQ: a block takes BM = 64 queries, warp w rows
// 16w .. 16w + 15, and streams key tiles of BK = 16 (causal: up to the last visible one): S = Q Kᵀ,
// dP = dO Vᵀ, dQ += dS K. All tiles are row-major in shared memory; the B fragments of the
// second products (column pairs of dO, Q, K) come from ldmatrix.trans.
#include "attention_mma.cuh"

// Kernels are bounded for two resident blocks per SM: without the bound ptxas holds the 64-wide
// dK/dV kernel to 128 registers on sm_80 and spills.

#define BKV (WARPS * 16)
#define BM (WARPS * 16)
// the streamed tiles are one 16 x 16 warp tile wide (score_gradients)
#define BQ 16
#define BK 16

// S (the raw dot q·k) becomes P and dP becomes dS = P * (dP - D) for query i, key j.
__device__ __forceinline__ void score_gradient(float& s, float& dp, const Problem& pr, const float* mask, const Operand& ms,
                                               int i, int j, float rowLse, float rowDot) {
    float sv = score(s, pr, mask, ms, i, j);
    float p = sv == NEG_INF || rowLse == NEG_INF ? 0.0f : expf(sv - rowLse);
    s = p;
    dp = p * (dp - rowDot);
}

template <int DMAX>
__device__ __forceinline__ void zero(float (*acc)[4]) {
#pragma unroll
    for (int n = 0; n < DMAX / 8; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.0f;
}

// A warp's 16 x 16 tiles S = rows · colsᵀ and dP = dRows · dColsᵀ (rows row0 .. row0 + 15 of the
// row tiles, the first 16 of the column tiles), then gradient(s, dp, r, c) on every element this
// thread holds, r and c its row and column within the 16 x 16 tile.
template <int DMAX, typename T, typename Gradient>
__device__ __forceinline__ void score_gradients(float (*s)[4], float (*dp)[4], const unsigned short* rows, const unsigned short* cols,
                                                const unsigned short* dRows, const unsigned short* dCols, int row0, int stride,
                                                Gradient gradient) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    zero<16>(s);
    zero<16>(dp);
    product_rows<DMAX, 2, T>(s, rows, row0, cols, 0, stride);
    product_rows<DMAX, 2, T>(dp, dRows, row0, dCols, 0, stride);
#pragma unroll
    for (int n = 0; n < 2; ++n) {
#pragma unroll
        for (int e = 0; e < 4; ++e) gradient(s[n][e], dp[n][e], g + 8 * (e / 2), n * 8 + 2 * t + e % 2);
    }
}

// dV and dK of one key tile, summed over the query heads of its kv head.
template <int DMAX, typename T>
__device__ void backward_kv(const unsigned short* q, Operand qs, const unsigned short* k, Operand ks, const unsigned short* v,
                            Operand vs, const float* mask, Operand ms, const float* dout, Operand dos, const float* lse,
                            const float* rowDots, float* dk, Operand dks, float* dv, Operand dvs, Problem pr) {
    constexpr int ST = DMAX + PAD;
    __shared__ __align__(16) unsigned short kt[BKV * ST], vt[BKV * ST], qt[BQ * ST], dot[BQ * ST];
    __shared__ float tileLse[BQ], tileDot[BQ];
    const int group = pr.heads / pr.kvHeads, bkv = blockIdx.x, b = bkv / pr.kvHeads, kvh = bkv % pr.kvHeads;
    const int n0 = blockIdx.y * BKV, warp = threadIdx.x / 32, g = threadIdx.x % 32 / 4;
    load_tile<BKV, DMAX, false, T>(kt, ST, k + b * ks.batch + kvh * ks.head, ks.seq, ks.dim, n0, pr.sk, pr.d);
    load_tile<BKV, DMAX, false, T>(vt, ST, v + b * vs.batch + kvh * vs.head, vs.seq, vs.dim, n0, pr.sk, pr.d);

    float dkAcc[DMAX / 8][4], dvAcc[DMAX / 8][4];
    zero<DMAX>(dkAcc);
    zero<DMAX>(dvAcc);
    const int firstQuery = first_visible_query(pr, n0);
    for (int h = kvh * group; h < (kvh + 1) * group; ++h) {
        const unsigned short* qh = q + b * qs.batch + h * qs.head;
        const float* doh = dout + b * dos.batch + h * dos.head;
        const float* mh = mask == nullptr ? nullptr : mask + b * ms.batch + h * ms.head;
        const long long rows = (long long)(b * pr.heads + h) * pr.sq;
        for (int m0 = firstQuery / BQ * BQ; m0 < pr.sq; m0 += BQ) {
            __syncthreads(); // the previous tile's readers are done (and k, v are stored, first time)
            load_tile<BQ, DMAX, false, T>(qt, ST, qh, qs.seq, qs.dim, m0, pr.sq, pr.d);
            load_tile<BQ, DMAX, false, T>(dot, ST, doh, dos.seq, dos.dim, m0, pr.sq, pr.d);
            if (threadIdx.x < BQ) {
                const int i = m0 + threadIdx.x;
                tileLse[threadIdx.x] = i < pr.sq ? lse[rows + i] : NEG_INF;
                tileDot[threadIdx.x] = i < pr.sq ? rowDots[rows + i] : 0.0f;
            }
            __syncthreads();
            // Sᵀ and dPᵀ: rows are this warp's keys, columns the tile's queries
            float s[2][4], dp[2][4];
            score_gradients<DMAX, T>(s, dp, kt, qt, vt, dot, warp * 16, ST, [&](float& sv, float& dpv, int r, int c) {
                score_gradient(sv, dpv, pr, mh, ms, m0 + c, n0 + warp * 16 + r, tileLse[c], tileDot[c]);
            });
            uint32_t a[4];
            pack_fragment<T>(a, s[0], s[1]);
            accumulate_times_rows<DMAX, T>(dvAcc, a, dot, 0, ST);
            pack_fragment<T>(a, dp[0], dp[1]);
            accumulate_times_rows<DMAX, T>(dkAcc, a, qt, 0, ST);
        }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int key = n0 + warp * 16 + g + 8 * r;
        if (key >= pr.sk) continue;
        store_row<DMAX>(dk + b * dks.batch + kvh * dks.head + (long long)key * dks.seq, dks.dim, dkAcc, r, pr.scale, pr.d);
        store_row<DMAX>(dv + b * dvs.batch + kvh * dvs.head + (long long)key * dvs.seq, dvs.dim, dvAcc, r, 1.0f, pr.d);
    }
}

// dQ of one query tile: dS recomputed against every visible key tile, times K.
template <int DMAX, typename T>
__device__ void backward_q(const unsigned short* q, Operand qs, const unsigned short* k, Operand ks, const unsigned short* v,
                           Operand vs, const float* mask, Operand ms, const float* dout, Operand dos, const float* lse,
                           const float* rowDots, float* dq, Operand dqs, Problem pr) {
    constexpr int ST = DMAX + PAD;
    __shared__ __align__(16) unsigned short qt[BM * ST], dot[BM * ST], kt[BK * ST], vt[BK * ST];
    const int bh = blockIdx.x, b = bh / pr.heads, h = bh % pr.heads, kvh = h / (pr.heads / pr.kvHeads);
    const int m0 = blockIdx.y * BM, warp = threadIdx.x / 32, g = threadIdx.x % 32 / 4;
    k += b * ks.batch + kvh * ks.head;
    v += b * vs.batch + kvh * vs.head;
    if (mask != nullptr) mask += b * ms.batch + h * ms.head;
    load_tile<BM, DMAX, false, T>(qt, ST, q + b * qs.batch + h * qs.head, qs.seq, qs.dim, m0, pr.sq, pr.d);
    load_tile<BM, DMAX, false, T>(dot, ST, dout + b * dos.batch + h * dos.head, dos.seq, dos.dim, m0, pr.sq, pr.d);
    float rowLse[2], rowDot[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int i = m0 + warp * 16 + g + 8 * r;
        rowLse[r] = i < pr.sq ? lse[(long long)bh * pr.sq + i] : NEG_INF;
        rowDot[r] = i < pr.sq ? rowDots[(long long)bh * pr.sq + i] : 0.0f;
    }

    float acc[DMAX / 8][4];
    zero<DMAX>(acc);
    const int kEnd = visible_keys_end(pr, m0, BM);
    for (int n0 = 0; n0 < kEnd; n0 += BK) {
        __syncthreads(); // the previous tile's readers are done (and q, dO are stored, first time)
        load_tile<BK, DMAX, false, T>(kt, ST, k, ks.seq, ks.dim, n0, pr.sk, pr.d);
        load_tile<BK, DMAX, false, T>(vt, ST, v, vs.seq, vs.dim, n0, pr.sk, pr.d);
        __syncthreads();
        float s[2][4], dp[2][4];
        score_gradients<DMAX, T>(s, dp, qt, kt, dot, vt, warp * 16, ST, [&](float& sv, float& dpv, int r, int c) {
            score_gradient(sv, dpv, pr, mask, ms, m0 + warp * 16 + r, n0 + c, rowLse[r / 8], rowDot[r / 8]);
        });
        uint32_t a[4];
        pack_fragment<T>(a, dp[0], dp[1]);
        accumulate_times_rows<DMAX, T>(acc, a, kt, 0, ST);
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
        const int i = m0 + warp * 16 + g + 8 * r;
        if (i < pr.sq) store_row<DMAX>(dq + b * dqs.batch + h * dqs.head + (long long)i * dqs.seq, dqs.dim, acc, r, pr.scale, pr.d);
    }
}

#define ATTENTION_MMA_BACKWARD_KERNELS(DMAX, NAME, TYPE)                                                         \
    extern "C" __global__ void __launch_bounds__(THREADS, 2) attention_backward_kv_mma_d##DMAX##_##NAME(           \
            const unsigned short* q, Operand qs, const unsigned short* k, Operand ks, const unsigned short* v,  \
            Operand vs, const float* mask, Operand ms, const float* dout, Operand dos, const float* lse,         \
            const float* rowDots, float* dk, Operand dks, float* dv, Operand dvs, Problem pr) {                 \
        backward_kv<DMAX, TYPE>(q, qs, k, ks, v, vs, mask, ms, dout, dos, lse, rowDots, dk, dks, dv, dvs, pr);  \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(THREADS, 2) attention_backward_q_mma_d##DMAX##_##NAME(            \
            const unsigned short* q, Operand qs, const unsigned short* k, Operand ks, const unsigned short* v,  \
            Operand vs, const float* mask, Operand ms, const float* dout, Operand dos, const float* lse,         \
            const float* rowDots, float* dq, Operand dqs, Problem pr) {                                         \
        backward_q<DMAX, TYPE>(q, qs, k, ks, v, vs, mask, ms, dout, dos, lse, rowDots, dq, dqs, pr);            \
    }

ATTENTION_MMA_BACKWARD_KERNELS(64, bf16, Bf16)
ATTENTION_MMA_BACKWARD_KERNELS(128, bf16, Bf16)
ATTENTION_MMA_BACKWARD_KERNELS(64, f16, F16)
ATTENTION_MMA_BACKWARD_KERNELS(128, f16, F16)
