// Block-wide reductions for the row kernels: one block per row, blockDim.x a multiple of 32 (at
// most 1024), each warp reduced with shuffles, then the warps' partials through shared memory.
// Every thread of the block gets the result.
#pragma once
#include "javamath.cuh"

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_sum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
    return v;
}

__device__ __forceinline__ float warp_max(float v) {
    for (int o = 16; o > 0; o >>= 1) v = java_max(v, __shfl_xor_sync(FULL_MASK, v, o));
    return v;
}

// The sum (isMax 0) or Java's max (isMax 1, NaN propagating) of v over the block.
__device__ float block_reduce(float v, int isMax) {
    __shared__ float partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = isMax ? warp_max(v) : warp_sum(v);
    if (warps == 1) return v;
    __syncthreads(); // an earlier call's readers are done with `partial`
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    v = lane < warps ? partial[lane] : (isMax ? __int_as_float(0xff800000) : 0.0f);
    return isMax ? warp_max(v) : warp_sum(v);
}

__device__ __forceinline__ float block_sum(float v) { return block_reduce(v, 0); }

__device__ __forceinline__ float block_max(float v) { return block_reduce(v, 1); }
