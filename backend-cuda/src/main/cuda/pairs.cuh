// Associative scans over affine maps s -> p*s + q (a Pair), for scan.cu: composing two steps is
// again such a map, so a run of steps collapses to one Pair. Within a warp the lanes' Pairs are
// scanned Hillis-Steele over shuffles (five steps for 32 lanes), in lane order or in reverse;
// block_scan joins the warps of a SCAN_THREADS block through shared memory.
#pragma once
#include "rows.cuh"

#define SCAN_THREADS 128
#define SCAN_WARPS (SCAN_THREADS / 32)

// The map s -> p*s + q.
struct Pair {
    float p, q;
};

__device__ __forceinline__ Pair identity_pair() { return Pair{1.0f, 0.0f}; }

// `then` applied after `first`.
__device__ __forceinline__ Pair after(Pair first, Pair then) {
    return Pair{then.p * first.p, fmaf(then.p, first.q, then.q)};
}

// Inclusive scan over the lanes in lane order: lane j gets lanes 0..j composed.
__device__ __forceinline__ Pair warp_scan_up(Pair v, int lane) {
    for (int o = 1; o < 32; o <<= 1) {
        Pair other{__shfl_up_sync(FULL_MASK, v.p, o), __shfl_up_sync(FULL_MASK, v.q, o)};
        if (lane >= o) v = after(other, v);
    }
    return v;
}

// Inclusive scan in reverse lane order: lane j gets lanes 31..j composed.
__device__ __forceinline__ Pair warp_scan_down(Pair v, int lane) {
    for (int o = 1; o < 32; o <<= 1) {
        Pair other{__shfl_down_sync(FULL_MASK, v.p, o), __shfl_down_sync(FULL_MASK, v.q, o)};
        if (lane + o < 32) v = after(other, v);
    }
    return v;
}

// The lanes before this one composed (from an inclusive warp_scan_up); identity on lane 0.
__device__ __forceinline__ Pair exclusive_up(Pair inclusive, int lane) {
    Pair before{__shfl_up_sync(FULL_MASK, inclusive.p, 1), __shfl_up_sync(FULL_MASK, inclusive.q, 1)};
    return lane == 0 ? identity_pair() : before;
}

// The lanes after this one composed (from an inclusive warp_scan_down); identity on lane 31.
__device__ __forceinline__ Pair exclusive_down(Pair inclusive, int lane) {
    Pair later{__shfl_down_sync(FULL_MASK, inclusive.p, 1), __shfl_down_sync(FULL_MASK, inclusive.q, 1)};
    return lane == 31 ? identity_pair() : later;
}

// Block-wide scan of one Pair per thread in thread order: the threads before this one composed
// (`before`), and the whole block's composition (`total`, on every thread).
__device__ __forceinline__ void block_scan(Pair local, Pair& before, Pair& total) {
    __shared__ Pair warpTotals[SCAN_WARPS];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    Pair inclusive = warp_scan_up(local, lane);
    if (lane == 31) warpTotals[warp] = inclusive;
    __syncthreads();
    Pair prefix = identity_pair();
    total = identity_pair();
    for (int w = 0; w < SCAN_WARPS; ++w) {
        if (w == warp) prefix = total;
        total = after(total, warpTotals[w]);
    }
    before = after(prefix, exclusive_up(inclusive, lane));
    __syncthreads(); // every thread has read warpTotals before the next call writes it
}
