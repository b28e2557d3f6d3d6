// The grouped expert GEMM of moe.cu, over groups of rows whose sizes (E, int64) stay on the device:
// each block finds its own (expert, row tile) work item from the sizes, as CUTLASS's grouped GEMM
// "problem visitor" does, so the host launches ⌈R / 64⌉ + E row tiles (at most one partial tile
// per expert) without knowing the sizes; items past the last tile leave at once. Tiles of 64 × 64
// with 256 threads, k in steps of 16 through shared memory, 4 × 4 accumulators per thread (rows
// ty + 16r, columns tx + 16c, so stores of a row-major result are contiguous), as gemm.cu.
// Sizes are read defensively (negative as 0, rows past R cut) so bad sizes never touch memory
// outside the operands; the host's check (Moe.checkGroupSizes) raises them.
#pragma once
#include "register_tile.cuh"

#define GG_TILE 64
#define GG_TILE_K 16
#define GG_THREADS 256
#define MAX_TABLE_EXPERTS 64

// Up to MAX_TABLE_EXPERTS experts' matrices by value (1,536 bytes of kernel parameters): the
// device address of each and its element strides, so per-expert weights of any layout need no
// stacking and no table in device memory. Entry 0 is the launch's first expert.
struct ExpertMatrices {
    unsigned long long address[MAX_TABLE_EXPERTS];
    long long rowStride[MAX_TABLE_EXPERTS];
    long long colStride[MAX_TABLE_EXPERTS];
};

// Group e's first row and size among `rows` into group[0] and group[1], sizes read defensively.
__device__ void group_of(const long long* sizes, int e, long long rows, long long* group) {
    long long start = 0, s = 0;
    for (int g = 0; g <= e; ++g) {
        start += s;
        s = sizes[g];
        s = s < 0 ? 0 : (s > rows - start ? rows - start : s);
    }
    group[0] = start;
    group[1] = s;
}

// Work item `item` among the row tiles of experts [first, first + count), in expert order: its
// expert (−1 past the last tile), first row and row count.
__device__ void row_tile_of(const long long* sizes, int first, int count, long long rows, long long item,
                            long long* info) {
    long long start = 0;
    info[0] = -1;
    for (int e = 0; e < first + count; ++e) {
        long long s = sizes[e];
        s = s < 0 ? 0 : (s > rows - start ? rows - start : s);
        if (e >= first) {
            long long tiles = (s + GG_TILE - 1) / GG_TILE;
            if (item < tiles) {
                info[0] = e;
                info[1] = start + item * GG_TILE;
                info[2] = s - item * GG_TILE < GG_TILE ? s - item * GG_TILE : GG_TILE;
                return;
            }
            item -= tiles;
        }
        start += s;
    }
}


// Bs[q][j] = B(k0 + q, col0 + j) of expert `le`'s matrix in `B`, zeros past kDim and n: consecutive
// threads on consecutive memory whichever of B's strides is 1.
__device__ __forceinline__ void load_b_tile(float (*Bs)[GG_TILE + 1], const ExpertMatrices& B, int le, int k0, long long col0,
                                            int kDim, int n) {
    const float* b = (const float*)B.address[le];
    const long long brs = B.rowStride[le], bcs = B.colStride[le];
    const bool rowMajor = bcs == 1;
    for (int l = 0; l < GG_TILE * GG_TILE_K / GG_THREADS; ++l) {
        int idx = threadIdx.x + l * GG_THREADS;
        int q = rowMajor ? idx / GG_TILE : idx % GG_TILE_K, j = rowMajor ? idx % GG_TILE : idx / GG_TILE_K;
        Bs[q][j] = k0 + q < kDim && col0 + j < n ? b[(k0 + q) * brs + (col0 + j) * bcs] : 0.0f;
    }
}

// C (R, n) = each row tile of A (R, kDim) times its expert's B (kDim, n), read through B's strides;
// GATED: C = silu(A·B) ⊙ (A·U) with both products of a tile in registers, and the products
// themselves written to gateOut and upOut when those are given.
template <bool GATED>
__device__ __forceinline__ void grouped_rows(float* __restrict__ C, float* __restrict__ gateOut, float* __restrict__ upOut,
                                             const float* __restrict__ A, const ExpertMatrices& B, const ExpertMatrices& U,
                                             const long long* __restrict__ sizes, int first, int count, long long rows,
                                             int kDim, int n) {
    __shared__ float As[GG_TILE_K][GG_TILE + 1];                 // As[p][i] = A(row0 + i, k0 + p)
    __shared__ float Bs[GG_TILE_K][GG_TILE + 1];                 // Bs[p][j] = B(k0 + p, col0 + j)
    __shared__ float Us[GATED ? GG_TILE_K : 1][GG_TILE + 1];     // likewise U's, when gated
    __shared__ long long info[3];
    if (threadIdx.x == 0) row_tile_of(sizes, first, count, rows, blockIdx.y, info);
    __syncthreads();
    if (info[0] < 0) return; // the whole block: past the last tile
    const int le = (int)info[0] - first;
    const long long row0 = info[1], tileRows = info[2];
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;
    const long long col0 = (long long)blockIdx.x * GG_TILE;
    float acc[4][4], accU[4][4];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) acc[r][c] = accU[r][c] = 0.0f;
    for (int k0 = 0; k0 < kDim; k0 += GG_TILE_K) {
        for (int l = 0; l < GG_TILE * GG_TILE_K / GG_THREADS; ++l) {
            int idx = t + l * GG_THREADS;
            int p = idx % GG_TILE_K, i = idx / GG_TILE_K; // A is row-major: consecutive threads along k
            As[p][i] = i < tileRows && k0 + p < kDim ? A[(row0 + i) * kDim + k0 + p] : 0.0f;
        }
        load_b_tile(Bs, B, le, k0, col0, kDim, n);
        if (GATED) load_b_tile(Us, U, le, k0, col0, kDim, n);
        __syncthreads();
        tile_fma<GG_TILE_K, GG_TILE + 1>(As, Bs, acc, ty, tx);
        if (GATED) tile_fma<GG_TILE_K, GG_TILE + 1>(As, Us, accU, ty, tx);
        __syncthreads();
    }
    for (int r = 0; r < 4; ++r) {
        int i = ty + 16 * r;
        if (i >= tileRows) continue;
        for (int c = 0; c < 4; ++c) {
            long long j = col0 + tx + 16 * c, at = (row0 + i) * n + j;
            if (j >= n) continue;
            if (GATED) {
                float a = acc[r][c], b = accU[r][c];
                C[at] = a / (1.0f + expf(-a)) * b;
                if (gateOut != nullptr) {
                    gateOut[at] = a;
                    upOut[at] = b;
                }
            } else {
                C[at] = acc[r][c];
            }
        }
    }
}

// Grid: (⌈n / 64⌉, ⌈R / 64⌉ + count); the forward runs with B = W_e, dx with B = W_eᵀ (strides swapped).
extern "C" __global__ void __launch_bounds__(GG_THREADS) grouped_matmul_f32(
        float* __restrict__ C, const float* __restrict__ A, ExpertMatrices B, const long long* __restrict__ sizes,
        int first, int count, long long rows, int kDim, int n) {
    grouped_rows<false>(C, nullptr, nullptr, A, B, B, sizes, first, count, rows, kDim, n);
}

// The experts' gate and up projections with SwiGLU between them (Mixtral's w1 and w3), grid as
// grouped_matmul_f32's: h = silu(x·gate_e) ⊙ (x·up_e), and the two projections when gateOut is given.
extern "C" __global__ void __launch_bounds__(GG_THREADS) grouped_swiglu_f32(
        float* __restrict__ h, float* __restrict__ gateOut, float* __restrict__ upOut, const float* __restrict__ x,
        ExpertMatrices gate, ExpertMatrices up, const long long* __restrict__ sizes, int first, int count, long long rows,
        int kDim, int n) {
    grouped_rows<true>(h, gateOut, upOut, x, gate, up, sizes, first, count, rows, kDim, n);
}

// dW_e (kDim, n) = X_eᵀ · G_e over group e's rows of X (R, kDim) and G (R, n), written through dW's
// strides; an empty group writes zeros. Grid: (⌈n / 64⌉, ⌈kDim / 64⌉, count), z the expert.
extern "C" __global__ void __launch_bounds__(GG_THREADS) grouped_matmul_weight_grad_f32(
        ExpertMatrices dW, const float* __restrict__ X, const float* __restrict__ G, const long long* __restrict__ sizes,
        int first, long long rows, int kDim, int n) {
    __shared__ float As[GG_TILE_K][GG_TILE + 1];   // As[p][i] = X(start + r0 + p, i0 + i)
    __shared__ float Bs[GG_TILE_K][GG_TILE + 1];   // Bs[p][j] = G(start + r0 + p, j0 + j)
    __shared__ long long group[2];
    const int le = blockIdx.z;
    if (threadIdx.x == 0) group_of(sizes, first + le, rows, group);
    __syncthreads();
    const long long start = group[0], size = group[1];
    const int t = threadIdx.x, tx = t % 16, ty = t / 16;
    const long long i0 = (long long)blockIdx.y * GG_TILE, j0 = (long long)blockIdx.x * GG_TILE;
    float acc[4][4];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) acc[r][c] = 0.0f;
    for (long long r0 = 0; r0 < size; r0 += GG_TILE_K) {
        for (int l = 0; l < GG_TILE * GG_TILE_K / GG_THREADS; ++l) {
            int idx = t + l * GG_THREADS;
            int p = idx / GG_TILE, i = idx % GG_TILE; // both row-major: consecutive threads along a row
            bool row = r0 + p < size;
            As[p][i] = row && i0 + i < kDim ? X[(start + r0 + p) * kDim + i0 + i] : 0.0f;
            Bs[p][i] = row && j0 + i < n ? G[(start + r0 + p) * n + j0 + i] : 0.0f;
        }
        __syncthreads();
        tile_fma<GG_TILE_K, GG_TILE + 1>(As, Bs, acc, ty, tx);
        __syncthreads();
    }
    float* w = (float*)dW.address[le];
    const long long rs = dW.rowStride[le], cs = dW.colStride[le];
    for (int r = 0; r < 4; ++r) {
        long long i = i0 + ty + 16 * r;
        if (i >= kDim) continue;
        for (int c = 0; c < 4; ++c) {
            long long j = j0 + tx + 16 * c;
            if (j < n) w[i * rs + j * cs] = acc[r][c];
        }
    }
}
