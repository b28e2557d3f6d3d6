// Shared by ssd.cu (forward) and ssd_backward.cu: the chunked SSD's sizes and where its
// operands' elements live. Every operand is a contiguous float32 array:
//   x, y, gy      (batch, L, heads, P)          dt          (batch, L, heads)
//   B, C          (batch, L, groups, N)         A, D        (heads)
//   h0, final     (batch, heads, P, N)
//   cum           (batch, chunks, heads, Q)     cum_l = sum over k <= l of dt_k*A within the chunk
//   CB            (batch, chunks, groups, Q, Q) C_l . B_s within a chunk
//   states, entering, dOut  (batch, chunks, heads, P, N)
// Position t = k*Q + l of chunk k; positions past L (the last chunk's padding) read as zeros.
#pragma once

#define SSD_TILE 16
#define SSD_MAX_CHUNK 256
// Warps a block of the backward's per-position kernels (CudaSsd.WARPS).
#define SSD_WARPS 4

struct SsdDims {
    int batch, len, heads, p, groups, n, q, chunks;
};

// Row t of a (batch, L, width, inner) array at (b, w): the element offset of its first entry.
__device__ __forceinline__ long long ssd_row(const SsdDims& d, int b, int t, int w, int width, int inner) {
    return (((long long)b * d.len + t) * width + w) * inner;
}

// The index of (b, k, h) in a (batch, chunks, heads, ...) array, in units of its trailing block.
__device__ __forceinline__ long long ssd_chunk_head(const SsdDims& d, int b, int k, int h) {
    return ((long long)b * d.chunks + k) * d.heads + h;
}

// The group head h reads.
__device__ __forceinline__ int ssd_group(const SsdDims& d, int h) { return h / (d.heads / d.groups); }

// Sum over the 32 lanes of a warp, the same order every run.
__device__ __forceinline__ float ssd_warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// Sum over a block of blockDim.x (a power of two, at most 256) threads through `scratch`, the
// same order every run; every thread gets the total. Ends with the block synchronised.
__device__ __forceinline__ float ssd_block_sum(float v, float* scratch) {
    int t = threadIdx.x;
    scratch[t] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) scratch[t] += scratch[t + s];
        __syncthreads();
    }
    float total = scratch[0];
    __syncthreads();
    return total;
}
