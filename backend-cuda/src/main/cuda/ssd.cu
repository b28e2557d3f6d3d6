// Mamba-2's chunked SSD in float32, forward, in mamba-ssm's structure (mamba_chunk_scan_combined),
// with the semantics of dev.symbiont.core.fused.scan.SsdChunks. Per (batch, head), positions in
// chunks of Q, cum_l = sum over k <= l of dt_k*A inside the chunk:
//   ssd_cumsum          cum, a thread per (batch, chunk, head) walking its Q positions
//   ssd_bmm             CB[l, s] = C_l . B_s per (batch, chunk, group), 16x16 tiles through shared memory
//                       (the backward reuses it for gy_l . x_s per head)
//   ssd_chunk_state     S_c = sum_s exp(cum_end - cum_s)*dt_s * x_s B_s^T, a 16x16 (P, N) tile per block
//                       (the backward reuses it with the weight exp(cum_s) for sum_l exp(cum_l) gy_l C_l^T)
//   ssd_state_passing   H_c = exp(cum_end)*H_{c-1} + S_c, a thread per (batch, head, p, n) walking the
//                       chunks; it keeps the state entering each chunk (the backward's checkpoints)
//   ssd_chunk_scan      y_l = sum_{s<=l} exp(cum_l - cum_s)*CB[l, s]*dt_s*x_s + exp(cum_l)*H_{c-1} C_l + D*x_l,
//                       a 16x16 (l, p) tile per block, both products over 16-wide tiles in shared memory
// Positions past L (the last chunk's padding) read as zeros: dt = 0, so they neither decay nor drive
// the state. Only the host's contiguous operands are read (FusedOperands.dense).
#include "common.cuh"
#include "ssd.cuh"

extern "C" __global__ void ssd_cumsum_f32(SsdDims d, const float* dt, const float* A, float* cum) {
    GRID_STRIDE(i, (long long)d.batch * d.chunks * d.heads) {
        int h = (int)(i % d.heads), k = (int)((i / d.heads) % d.chunks);
        long long b = i / ((long long)d.heads * d.chunks);
        float a = A[h], acc = 0.0f;
        for (int l = 0; l < d.q; ++l) {
            int t = k * d.q + l;
            if (t < d.len) acc += dt[(b * d.len + t) * d.heads + h] * a;
            cum[i * d.q + l] = acc;
        }
    }
}

// out (batch, chunks, width, Q, Q) = U_l . V_s within each chunk, U and V (batch, L, width, inner).
// Grid (tiles^2, chunks, batch*width); tiles wholly above the diagonal are written as zeros.
extern "C" __global__ void ssd_bmm_f32(SsdDims d, const float* U, const float* V, int width, int inner, float* out) {
    __shared__ float us[SSD_TILE][SSD_TILE + 1], vs[SSD_TILE][SSD_TILE + 1];
    int tiles = (d.q + SSD_TILE - 1) / SSD_TILE;
    int l0 = (blockIdx.x / tiles) * SSD_TILE, s0 = (blockIdx.x % tiles) * SSD_TILE;
    int k = blockIdx.y, b = blockIdx.z / width, w = blockIdx.z % width, tx = threadIdx.x, ty = threadIdx.y;
    int lRow = l0 + ty, sRow = s0 + ty, tl = k * d.q + lRow, ts = k * d.q + sRow;
    bool lIn = lRow < d.q && tl < d.len, sIn = sRow < d.q && ts < d.len;
    float acc = 0.0f;
    if (s0 <= l0) {
        for (int j0 = 0; j0 < inner; j0 += SSD_TILE) {
            int j = j0 + tx;
            us[ty][tx] = lIn && j < inner ? U[ssd_row(d, b, tl, w, width, inner) + j] : 0.0f;
            vs[ty][tx] = sIn && j < inner ? V[ssd_row(d, b, ts, w, width, inner) + j] : 0.0f;
            __syncthreads();
            for (int jj = 0; jj < SSD_TILE; ++jj) acc += us[ty][jj] * vs[tx][jj];
            __syncthreads();
        }
    }
    int l = l0 + ty, s = s0 + tx;
    if (l < d.q && s < d.q) out[((((long long)b * d.chunks + k) * width + w) * d.q + l) * d.q + s] = acc;
}

// out (batch, chunks, heads, P, N) = sum over the chunk's positions of w_l * U_l V_l^T, U (batch, L,
// heads, P), V (batch, L, groups, N); w_l = exp(cum_end - cum_l)*dt_l, or exp(cum_l) with fromStart.
// Grid (tilesP*tilesN, chunks, batch*heads), a thread per (p, n) of the block's tile.
extern "C" __global__ void ssd_chunk_state_f32(SsdDims d, const float* U, const float* V, const float* dt, const float* cum,
                                               int fromStart, float* out) {
    __shared__ float us[SSD_TILE][SSD_TILE + 1], vs[SSD_TILE][SSD_TILE + 1];
    int tilesN = (d.n + SSD_TILE - 1) / SSD_TILE;
    int p0 = (blockIdx.x / tilesN) * SSD_TILE, n0 = (blockIdx.x % tilesN) * SSD_TILE;
    int k = blockIdx.y, b = blockIdx.z / d.heads, h = blockIdx.z % d.heads, g = ssd_group(d, h);
    int tx = threadIdx.x, ty = threadIdx.y;
    const float* cumk = cum + ssd_chunk_head(d, b, k, h) * d.q;
    float end = cumk[d.q - 1], acc = 0.0f;
    for (int l0 = 0; l0 < d.q; l0 += SSD_TILE) {
        int l = l0 + ty, t = k * d.q + l;
        bool in = l < d.q && t < d.len;
        float w = !in ? 0.0f : fromStart ? expf(cumk[l]) : expf(end - cumk[l]) * dt[((long long)b * d.len + t) * d.heads + h];
        us[ty][tx] = in && p0 + tx < d.p ? w * U[ssd_row(d, b, t, h, d.heads, d.p) + p0 + tx] : 0.0f;
        vs[ty][tx] = in && n0 + tx < d.n ? V[ssd_row(d, b, t, g, d.groups, d.n) + n0 + tx] : 0.0f;
        __syncthreads();
        for (int jj = 0; jj < SSD_TILE; ++jj) acc += us[jj][ty] * vs[jj][tx];
        __syncthreads();
    }
    if (p0 + ty < d.p && n0 + tx < d.n) out[(ssd_chunk_head(d, b, k, h) * d.p + p0 + ty) * d.n + n0 + tx] = acc;
}

// entering[c] = H_{c-1} (h0 or 0 for c = 0), final = H after the last chunk.
extern "C" __global__ void ssd_state_passing_f32(SsdDims d, const float* states, const float* cum, const float* h0,
                                                 float* entering, float* final) {
    long long pn = (long long)d.p * d.n;
    GRID_STRIDE(i, (long long)d.batch * d.heads * pn) {
        long long e = i % pn, bh = i / pn;
        int h = (int)(bh % d.heads), b = (int)(bh / d.heads);
        float state = h0 == nullptr ? 0.0f : h0[i];
        for (int k = 0; k < d.chunks; ++k) {
            long long at = ssd_chunk_head(d, b, k, h);
            entering[at * pn + e] = state;
            state = expf(cum[at * d.q + d.q - 1]) * state + states[at * pn + e];
        }
        final[i] = state;
    }
}

// y, a 16x16 tile of (l, p) per block. Grid (tilesQ*tilesP, chunks, batch*heads).
extern "C" __global__ void ssd_chunk_scan_f32(SsdDims d, const float* x, const float* dt, const float* cum, const float* CB,
                                              const float* C, const float* entering, const float* D, float* y) {
    __shared__ float ws[SSD_TILE][SSD_TILE + 1], xs[SSD_TILE][SSD_TILE + 1];
    int tilesP = (d.p + SSD_TILE - 1) / SSD_TILE;
    int l0 = (blockIdx.x / tilesP) * SSD_TILE, p0 = (blockIdx.x % tilesP) * SSD_TILE;
    int k = blockIdx.y, b = blockIdx.z / d.heads, h = blockIdx.z % d.heads, g = ssd_group(d, h);
    int tx = threadIdx.x, ty = threadIdx.y, l = l0 + ty, p = p0 + tx, t = k * d.q + l;
    bool lIn = l < d.q && t < d.len;
    const float* cumk = cum + ssd_chunk_head(d, b, k, h) * d.q;
    const float* cb = CB + (((long long)b * d.chunks + k) * d.groups + g) * d.q * d.q;
    float cl = lIn ? cumk[l] : 0.0f, acc = 0.0f;
    // Within the chunk: the tiles of s at or left of the diagonal.
    for (int s0 = 0; s0 <= l0; s0 += SSD_TILE) {
        int s = s0 + tx, ts = k * d.q + s, sr = s0 + ty, tr = k * d.q + sr;
        ws[ty][tx] = lIn && s <= l ? expf(cl - cumk[s]) * cb[(long long)l * d.q + s] * dt[((long long)b * d.len + ts) * d.heads + h]
                                   : 0.0f;
        xs[ty][tx] = sr < d.q && tr < d.len && p < d.p ? x[ssd_row(d, b, tr, h, d.heads, d.p) + p] : 0.0f;
        __syncthreads();
        for (int jj = 0; jj < SSD_TILE; ++jj) acc += ws[ty][jj] * xs[jj][tx];
        __syncthreads();
    }
    // The state entering the chunk, read out through C_l.
    const float* hin = entering + ssd_chunk_head(d, b, k, h) * d.p * d.n;
    float off = 0.0f;
    for (int n0 = 0; n0 < d.n; n0 += SSD_TILE) {
        ws[ty][tx] = lIn && n0 + tx < d.n ? C[ssd_row(d, b, t, g, d.groups, d.n) + n0 + tx] : 0.0f;
        xs[tx][ty] = p0 + ty < d.p && n0 + tx < d.n ? hin[(long long)(p0 + ty) * d.n + n0 + tx] : 0.0f;
        __syncthreads();
        for (int jj = 0; jj < SSD_TILE; ++jj) off += ws[ty][jj] * xs[jj][tx];
        __syncthreads();
    }
    if (lIn && p < d.p) {
        long long i = ssd_row(d, b, t, h, d.heads, d.p) + p;
        y[i] = acc + expf(cl) * off + (D == nullptr ? 0.0f : D[h] * x[i]);
    }
}
