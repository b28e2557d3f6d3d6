// Warp collectives, atomics and dynamic shared memory in the shapes reductions, cumsum, topk and
// scatterAdd use, compiled by nvcc to the PTX the interpreter's tests run (see CollectivesKernelsTest):
//   nvcc -ptx -arch=compute_80 -o collectives.ptx collectives.cu
#include "../../../../../../main/cuda/common.cuh"

// Argmax per block, ties to the lower index: (value, 64-bit index) pairs reduced with __shfl_xor_sync
// inside warps (the 64-bit index moves as two 32-bit shuffles), then across warps in dynamic shared memory.
extern "C" __global__ void argmax_f32(long long* out, const float* __restrict__ x, long long n) {
    extern __shared__ unsigned char smem[];
    float* values = (float*)smem;
    long long* indices = (long long*)(smem + 32 * sizeof(float));
    float best = -__int_as_float(0x7f800000);
    long long at = -1;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x) {
        float v = __ldg(&x[i]);
        if (v > best || (v == best && (at < 0 || i < at))) { best = v; at = i; }
    }
    for (int mask = 16; mask > 0; mask >>= 1) {
        float v = __shfl_xor_sync(0xffffffffu, best, mask);
        long long j = __shfl_xor_sync(0xffffffffu, at, mask);
        if (j >= 0 && (v > best || (v == best && (at < 0 || j < at)))) { best = v; at = j; }
    }
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (lane == 0) { values[warp] = best; indices[warp] = at; }
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int w = 1; w < blockDim.x / 32; w++) {
            if (indices[w] >= 0 && (values[w] > best || (values[w] == best && (at < 0 || indices[w] < at)))) {
                best = values[w];
                at = indices[w];
            }
        }
        out[blockIdx.x] = at;
    }
}

// Inclusive scan of each warp's 32 elements with __shfl_up_sync (cumsum's inner step); the last lane's
// total is broadcast back with __shfl_sync and every lane adds it to a block total in shared memory.
extern "C" __global__ void warp_scan_i32(int* scan, int* totals, const int* x, int n) {
    __shared__ int block_total;
    if (threadIdx.x == 0) block_total = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = i < n ? x[i] : 0;
    int lane = threadIdx.x % 32;
    for (int offset = 1; offset < 32; offset <<= 1) {
        int up = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset) v += up;
    }
    if (i < n) scan[i] = v;
    int warp_total = __shfl_sync(0xffffffffu, v, 31);
    if (lane == 0) atomicAdd(&block_total, warp_total);
    __syncthreads();
    if (threadIdx.x == 0) totals[blockIdx.x] = block_total;
}

// Float max through an atomicCAS loop, int min, exchange, a double atomicAdd, and votes.
extern "C" __global__ void atomics_and_votes(float* fmax, int* imin, int* last, double* dsum, unsigned* ballots,
                                             int* counts, const float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    int* address = (int*)fmax;
    int old = *address, assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= v) break;
        old = atomicCAS(address, assumed, __float_as_int(v));
    } while (old != assumed);
    atomicMin(imin, (int)(v * 100.0f));
    atomicExch(last, 1);
    atomicAdd(dsum, (double)v);
    unsigned active = __activemask();
    unsigned positive = __ballot_sync(active, v > 0.0f);
    int all = __all_sync(active, v > -100.0f), any = __any_sync(active, v > 2.5f); // every active lane votes
    if (threadIdx.x % 32 == 0) {
        ballots[i / 32] = positive;
        counts[3 * (i / 32)] = __popc(positive);
        counts[3 * (i / 32) + 1] = all;
        counts[3 * (i / 32) + 2] = any;
    }
}
