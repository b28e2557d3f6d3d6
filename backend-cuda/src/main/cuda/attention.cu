// Scaled-dot-product attention in float32, FlashAttention-2 (Dao, 2023): the (sq, sk) scores are
// never written to memory. Semantics are dev.symbiont.core.fused.attention.Attention's: q
// (batch, heads, sq, d), k and v (batch, kvHeads, sk, d), query head h reads kv head
// h / (heads / kvHeads); an additive mask read through its strides (0 for broadcast dims); causal:
// key j is visible to query i iff j <= i + (sk - sq); a row with no visible key outputs zeros and
// has logsumexp -inf.
//
// Tiling: a block of 128 threads works on TILE = 16 query rows against TILE keys at a time, the
// tiles in shared memory rows of DMAX + 1 floats (the pad keeps a warp's column reads in distinct
// banks). In the score phase thread t owns score row t / 8 and the columns t % 8 and t % 8 + 8, so
// a row's eight threads sit in one warp and reduce with shuffles; in the accumulate phase thread t
// owns row t / 8 of the (TILE, d) accumulator and its columns t % 8 + 8j. DMAX (64 or 128) bounds
// head_dim at compile time: the accumulators are DMAX / 8 registers; any d <= DMAX runs (the loops
// stop at d).
//
// Forward: a block per (batch * head, query tile) streams the key/value tiles with a running max
// and sum (online softmax), rescales its accumulator as the max grows, normalises at the end and
// stores the logsumexp. Under causality the key tiles right of the tile's last visible key are
// never loaded.
// Backward: D = rowsum(dO * O) first (attention_rowdot); then a block per (batch * kvHead, key
// tile) recomputes P = exp(S - logsumexp) tile by tile for every query head of its group and
// accumulates dV += P^T dO and dK += dS^T Q, dS = P * (dO V^T - D), in registers: the group's sum
// needs no atomics. dQ = dS K is a second pass, a block per (batch * head, query tile): the
// scores are recomputed once more instead of atomically adding into dQ, so the result is
// deterministic and needs no zeroed buffer.
#include "common.cuh"
#include "attention.cuh"

#define TILE 16
#define THREADS 128
#define ROW_LANES 8

// rows [row0, row0 + TILE) of a (seq, d) matrix into a tile; rows past `rows` read zero.
template <int DMAX>
__device__ __forceinline__ void load_tile(float (*tile)[DMAX + 1], const float* base, long long seqStride,
                                          long long dimStride, int row0, int rows, int d) {
    for (int idx = threadIdx.x; idx < TILE * DMAX; idx += THREADS) {
        int r = idx / DMAX, x = idx % DMAX;
        if (x >= d) continue;
        int row = row0 + r;
        tile[r][x] = row < rows ? base[(long long)row * seqStride + (long long)x * dimStride] : 0.0f;
    }
}

// a[r] . b[c] and a[r] . b[c + 8] over the first d columns.
template <int DMAX>
__device__ __forceinline__ void dot_pair(const float (*a)[DMAX + 1], const float (*b)[DMAX + 1], int r, int c, int d,
                                         float& s0, float& s1) {
    s0 = 0.0f;
    s1 = 0.0f;
    for (int p = 0; p < d; ++p) {
        float av = a[r][p];
        s0 = fmaf(av, b[c][p], s0);
        s1 = fmaf(av, b[c + 8][p], s1);
    }
}

// max / sum over the eight lanes of one score row (they are lanes 8k .. 8k + 7 of a warp).
__device__ __forceinline__ float row_max(float v) {
    for (int o = 1; o < ROW_LANES; o <<= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

__device__ __forceinline__ float row_sum(float v) {
    for (int o = 1; o < ROW_LANES; o <<= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// acc[j] += sum over the tile's first `keys` rows c of w[c] * tile[c][lane + 8j]: one row of a
// (TILE, TILE) x (TILE, d) product, for the columns this thread owns.
template <int DMAX>
__device__ __forceinline__ void accumulate_row(float acc[DMAX / ROW_LANES], const float* w, const float (*tile)[DMAX + 1],
                                               int keys, int lane, int d) {
    for (int c = 0; c < keys; ++c) {
        float wc = w[c];
#pragma unroll
        for (int j = 0; j < DMAX / ROW_LANES; ++j) {
            int x = lane + ROW_LANES * j;
            if (x < d) acc[j] = fmaf(wc, tile[c][x], acc[j]);
        }
    }
}

// row[x * dimStride] = acc * factor for the columns x = lane + 8j this thread owns.
template <int DMAX>
__device__ __forceinline__ void store_row(float* row, long long dimStride, const float acc[DMAX / ROW_LANES], float factor,
                                          int lane, int d) {
#pragma unroll
    for (int j = 0; j < DMAX / ROW_LANES; ++j) {
        int x = lane + ROW_LANES * j;
        if (x < d) row[(long long)x * dimStride] = acc[j] * factor;
    }
}

template <int DMAX>
__device__ void forward(const float* q, Operand qs, const float* k, Operand ks, const float* v, Operand vs,
                        const float* mask, Operand ms, float* out, Operand os, float* lse, Problem pr) {
    __shared__ float qt[TILE][DMAX + 1], kt[TILE][DMAX + 1], vt[TILE][DMAX + 1];
    __shared__ float pt[TILE][TILE + 1];
    const int bh = blockIdx.x, b = bh / pr.heads, h = bh % pr.heads, kvh = h / (pr.heads / pr.kvHeads);
    const int m0 = blockIdx.y * TILE, t = threadIdx.x, r = t / ROW_LANES, lane = t % ROW_LANES, i = m0 + r;
    q += b * qs.batch + h * qs.head;
    k += b * ks.batch + kvh * ks.head;
    v += b * vs.batch + kvh * vs.head;
    if (mask != nullptr) mask += b * ms.batch + h * ms.head;
    load_tile<DMAX>(qt, q, qs.seq, qs.dim, m0, pr.sq, pr.d);

    float mRow = NEG_INF, lRow = 0.0f, acc[DMAX / ROW_LANES];
#pragma unroll
    for (int j = 0; j < DMAX / ROW_LANES; ++j) acc[j] = 0.0f;
    const int kEnd = visible_keys_end(pr, m0, TILE);
    for (int n0 = 0; n0 < kEnd; n0 += TILE) {
        __syncthreads(); // the previous tile's readers are done (and q's tile is stored, first time)
        load_tile<DMAX>(kt, k, ks.seq, ks.dim, n0, pr.sk, pr.d);
        load_tile<DMAX>(vt, v, vs.seq, vs.dim, n0, pr.sk, pr.d);
        __syncthreads();
        float s0, s1;
        dot_pair<DMAX>(qt, kt, r, lane, pr.d, s0, s1);
        s0 = score(s0, pr, mask, ms, i, n0 + lane);
        s1 = score(s1, pr, mask, ms, i, n0 + lane + 8);
        float mNew = fmaxf(mRow, row_max(fmaxf(s0, s1)));
        // while every score so far is hidden the shift is 0, so exp gives zeros rather than NaN
        float shift = mNew == NEG_INF ? 0.0f : mNew;
        float alpha = expf(mRow - shift);
        float p0 = expf(s0 - shift), p1 = expf(s1 - shift);
        lRow = lRow * alpha + row_sum(p0 + p1);
        mRow = mNew;
        pt[r][lane] = p0;
        pt[r][lane + 8] = p1;
        __syncwarp(); // row r's probabilities come from its own warp
#pragma unroll
        for (int j = 0; j < DMAX / ROW_LANES; ++j) acc[j] *= alpha;
        accumulate_row<DMAX>(acc, pt[r], vt, min(TILE, pr.sk - n0), lane, pr.d);
    }
    if (i >= pr.sq) return;
    store_row<DMAX>(out + b * os.batch + h * os.head + (long long)i * os.seq, os.dim, acc,
                    lRow > 0.0f ? 1.0f / lRow : 0.0f, lane, pr.d);
    if (lane == 0) lse[(long long)bh * pr.sq + i] = lRow > 0.0f ? mRow + logf(lRow) : NEG_INF;
}

// P and dS = P * (dP - D) of query row i against keys c and c + 8 of the key tile at n0.
template <int DMAX>
__device__ __forceinline__ void probs_and_grads(const float (*qt)[DMAX + 1], const float (*dot)[DMAX + 1],
                                                const float (*kt)[DMAX + 1], const float (*vt)[DMAX + 1],
                                                const Problem& pr, const float* mask, const Operand& ms,
                                                int r, int lane, int i, int n0, float rowLse, float rowDot,
                                                float& p0, float& p1, float& ds0, float& ds1) {
    float s0, s1, dp0, dp1;
    dot_pair<DMAX>(qt, kt, r, lane, pr.d, s0, s1);
    dot_pair<DMAX>(dot, vt, r, lane, pr.d, dp0, dp1);
    s0 = score(s0, pr, mask, ms, i, n0 + lane);
    s1 = score(s1, pr, mask, ms, i, n0 + lane + 8);
    p0 = s0 == NEG_INF || rowLse == NEG_INF ? 0.0f : expf(s0 - rowLse);
    p1 = s1 == NEG_INF || rowLse == NEG_INF ? 0.0f : expf(s1 - rowLse);
    ds0 = p0 * (dp0 - rowDot);
    ds1 = p1 * (dp1 - rowDot);
}

// dV and dK of one key tile, summed over the query heads of its kv head.
template <int DMAX>
__device__ void backward_kv(const float* q, Operand qs, const float* k, Operand ks, const float* v, Operand vs,
                            const float* mask, Operand ms, const float* dout, Operand dos, const float* lse,
                            const float* rowDots, float* dk, Operand dks, float* dv, Operand dvs, Problem pr) {
    __shared__ float qt[TILE][DMAX + 1], dot[TILE][DMAX + 1], kt[TILE][DMAX + 1], vt[TILE][DMAX + 1];
    __shared__ float pt[TILE][TILE + 1], dst[TILE][TILE + 1];
    const int group = pr.heads / pr.kvHeads;
    const int bkv = blockIdx.x, b = bkv / pr.kvHeads, kvh = bkv % pr.kvHeads;
    const int n0 = blockIdx.y * TILE, t = threadIdx.x, r = t / ROW_LANES, lane = t % ROW_LANES;
    load_tile<DMAX>(kt, k + b * ks.batch + kvh * ks.head, ks.seq, ks.dim, n0, pr.sk, pr.d);
    load_tile<DMAX>(vt, v + b * vs.batch + kvh * vs.head, vs.seq, vs.dim, n0, pr.sk, pr.d);

    float dkAcc[DMAX / ROW_LANES], dvAcc[DMAX / ROW_LANES];
#pragma unroll
    for (int j = 0; j < DMAX / ROW_LANES; ++j) dkAcc[j] = dvAcc[j] = 0.0f;
    const int firstQuery = first_visible_query(pr, n0);
    for (int h = kvh * group; h < (kvh + 1) * group; ++h) {
        const float* qh = q + b * qs.batch + h * qs.head;
        const float* doh = dout + b * dos.batch + h * dos.head;
        const float* mh = mask == nullptr ? nullptr : mask + b * ms.batch + h * ms.head;
        const long long rows = (long long)(b * pr.heads + h) * pr.sq;
        for (int m0 = firstQuery / TILE * TILE; m0 < pr.sq; m0 += TILE) {
            __syncthreads(); // the previous tile's readers are done (and k, v are stored, first time)
            load_tile<DMAX>(qt, qh, qs.seq, qs.dim, m0, pr.sq, pr.d);
            load_tile<DMAX>(dot, doh, dos.seq, dos.dim, m0, pr.sq, pr.d);
            __syncthreads();
            const int i = m0 + r;
            float rowLse = i < pr.sq ? lse[rows + i] : NEG_INF, rowDot = i < pr.sq ? rowDots[rows + i] : 0.0f;
            float p0, p1, ds0, ds1;
            probs_and_grads<DMAX>(qt, dot, kt, vt, pr, mh, ms, r, lane, i, n0, rowLse, rowDot, p0, p1, ds0, ds1);
            pt[r][lane] = p0;
            pt[r][lane + 8] = p1;
            dst[r][lane] = ds0;
            dst[r][lane + 8] = ds1;
            __syncthreads();
            // now thread t accumulates key row r of the tile
            const int queries = min(TILE, pr.sq - m0);
            // kept rolled: unrolled, ptxas spills registers on sm_90 (the inner loop over columns is unrolled)
#pragma unroll 1
            for (int qi = 0; qi < queries; ++qi) {
                float pv = pt[qi][r], dsv = dst[qi][r];
#pragma unroll
                for (int j = 0; j < DMAX / ROW_LANES; ++j) {
                    int x = lane + ROW_LANES * j;
                    if (x < pr.d) {
                        dvAcc[j] = fmaf(pv, dot[qi][x], dvAcc[j]);
                        dkAcc[j] = fmaf(dsv, qt[qi][x], dkAcc[j]);
                    }
                }
            }
        }
    }
    const int key = n0 + r;
    if (key >= pr.sk) return;
    store_row<DMAX>(dk + b * dks.batch + kvh * dks.head + (long long)key * dks.seq, dks.dim, dkAcc, pr.scale, lane, pr.d);
    store_row<DMAX>(dv + b * dvs.batch + kvh * dvs.head + (long long)key * dvs.seq, dvs.dim, dvAcc, 1.0f, lane, pr.d);
}

// dQ of one query tile: dS recomputed against every visible key tile, times K.
template <int DMAX>
__device__ void backward_q(const float* q, Operand qs, const float* k, Operand ks, const float* v, Operand vs,
                           const float* mask, Operand ms, const float* dout, Operand dos, const float* lse,
                           const float* rowDots, float* dq, Operand dqs, Problem pr) {
    __shared__ float qt[TILE][DMAX + 1], dot[TILE][DMAX + 1], kt[TILE][DMAX + 1], vt[TILE][DMAX + 1];
    __shared__ float dst[TILE][TILE + 1];
    const int bh = blockIdx.x, b = bh / pr.heads, h = bh % pr.heads, kvh = h / (pr.heads / pr.kvHeads);
    const int m0 = blockIdx.y * TILE, t = threadIdx.x, r = t / ROW_LANES, lane = t % ROW_LANES, i = m0 + r;
    k += b * ks.batch + kvh * ks.head;
    v += b * vs.batch + kvh * vs.head;
    if (mask != nullptr) mask += b * ms.batch + h * ms.head;
    load_tile<DMAX>(qt, q + b * qs.batch + h * qs.head, qs.seq, qs.dim, m0, pr.sq, pr.d);
    load_tile<DMAX>(dot, dout + b * dos.batch + h * dos.head, dos.seq, dos.dim, m0, pr.sq, pr.d);
    const long long row = (long long)bh * pr.sq + i;
    const float rowLse = i < pr.sq ? lse[row] : NEG_INF, rowDot = i < pr.sq ? rowDots[row] : 0.0f;

    float acc[DMAX / ROW_LANES];
#pragma unroll
    for (int j = 0; j < DMAX / ROW_LANES; ++j) acc[j] = 0.0f;
    const int kEnd = visible_keys_end(pr, m0, TILE);
    for (int n0 = 0; n0 < kEnd; n0 += TILE) {
        __syncthreads();
        load_tile<DMAX>(kt, k, ks.seq, ks.dim, n0, pr.sk, pr.d);
        load_tile<DMAX>(vt, v, vs.seq, vs.dim, n0, pr.sk, pr.d);
        __syncthreads();
        float p0, p1, ds0, ds1;
        probs_and_grads<DMAX>(qt, dot, kt, vt, pr, mask, ms, r, lane, i, n0, rowLse, rowDot, p0, p1, ds0, ds1);
        dst[r][lane] = ds0;
        dst[r][lane + 8] = ds1;
        __syncwarp(); // row r's dS comes from its own warp
        accumulate_row<DMAX>(acc, dst[r], kt, min(TILE, pr.sk - n0), lane, pr.d);
    }
    if (i >= pr.sq) return;
    store_row<DMAX>(dq + b * dqs.batch + h * dqs.head + (long long)i * dqs.seq, dqs.dim, acc, pr.scale, lane, pr.d);
}

// D[row] = sum over d of dO * O, one thread per (batch, head, query) row in row-major order.
extern "C" __global__ void attention_rowdot_f32(float* rowDots, const float* dout, Operand dos, const float* out,
                                                Operand os, int heads, int sq, int d, long long rows) {
    GRID_STRIDE(row, rows) {
        long long i = row % sq, bh = row / sq, b = bh / heads, h = bh % heads;
        const float* a = dout + b * dos.batch + h * dos.head + i * dos.seq;
        const float* o = out + b * os.batch + h * os.head + i * os.seq;
        float sum = 0.0f;
        for (int x = 0; x < d; ++x) sum = fmaf(a[(long long)x * dos.dim], o[(long long)x * os.dim], sum);
        rowDots[row] = sum;
    }
}

#define ATTENTION_KERNELS(DMAX)                                                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS) attention_forward_d##DMAX##_f32(                      \
            const float* q, Operand qs, const float* k, Operand ks, const float* v, Operand vs,                 \
            const float* mask, Operand ms, float* out, Operand os, float* lse, Problem pr) {                     \
        forward<DMAX>(q, qs, k, ks, v, vs, mask, ms, out, os, lse, pr);                                         \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(THREADS) attention_backward_kv_d##DMAX##_f32(                  \
            const float* q, Operand qs, const float* k, Operand ks, const float* v, Operand vs,                 \
            const float* mask, Operand ms, const float* dout, Operand dos, const float* lse,                    \
            const float* rowDots, float* dk, Operand dks, float* dv, Operand dvs, Problem pr) {                 \
        backward_kv<DMAX>(q, qs, k, ks, v, vs, mask, ms, dout, dos, lse, rowDots, dk, dks, dv, dvs, pr);        \
    }                                                                                                            \
    extern "C" __global__ void __launch_bounds__(THREADS) attention_backward_q_d##DMAX##_f32(                   \
            const float* q, Operand qs, const float* k, Operand ks, const float* v, Operand vs,                 \
            const float* mask, Operand ms, const float* dout, Operand dos, const float* lse,                    \
            const float* rowDots, float* dq, Operand dqs, Problem pr) {                                         \
        backward_q<DMAX>(q, qs, k, ks, v, vs, mask, ms, dout, dos, lse, rowDots, dq, dqs, pr);                  \
    }

ATTENTION_KERNELS(64)
ATTENTION_KERNELS(128)
