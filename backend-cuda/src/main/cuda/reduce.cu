// Reductions over float32 with the reference backend's semantics
// (dev.symbiont.core.reference.ReferenceReductions): sums accumulate in double, max/min are
// Java's Math.max/min (NaN propagates), argmax/argmin pick the first extreme and NaN counts as
// the extreme. The host splits x into an outer layout (one step per output element, in the
// output's row-major order) and an inner layout (the reduced dims, offset 0): element j of
// output o is x[strided_offset(outer, o) + strided_offset(inner, j)].
#include "common.cuh"
#include "javamath.cuh"

// The blocks' scratch is dynamic shared memory, sized by the host for its blockDim.x:
// reduce_f32 blockDim.x doubles; argreduce_f32 blockDim.x int64 indices then as many floats.
extern __shared__ unsigned long long reduce_scratch[];

enum Reduce { SUM, MAX, MIN };

__device__ __forceinline__ double reduce_combine(int op, double a, double b) {
    if (op == SUM) return a + b;
    return op == MAX ? (double)java_max((float)a, (float)b) : (double)java_min((float)a, (float)b);
}

// One block per output element (the blocks stride over them); blockDim.x is a power of two. The threads stride over the reduced extent, then a shared-memory tree.
extern "C" __global__ void reduce_f32(float* __restrict__ out, const float* __restrict__ x, Strided outer,
                                      Strided inner, long long count, long long extent, int op) {
    double* partial = (double*)reduce_scratch;
    double identity = op == SUM ? 0.0 : op == MAX ? -__longlong_as_double(0x7ff0000000000000LL)
                                                  : __longlong_as_double(0x7ff0000000000000LL);
    for (long long o = blockIdx.x; o < count; o += gridDim.x) {
        long long base = strided_offset(outer, o);
        double acc = identity;
        for (long long j = threadIdx.x; j < extent; j += blockDim.x) {
            acc = reduce_combine(op, acc, (double)x[base + strided_offset(inner, j)]);
        }
        partial[threadIdx.x] = acc;
        __syncthreads();
        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) partial[threadIdx.x] = reduce_combine(op, partial[threadIdx.x], partial[threadIdx.x + s]);
            __syncthreads();
        }
        if (threadIdx.x == 0) out[o] = (float)partial[0];
        __syncthreads();  // partial[0] is read before the next output overwrites it
    }
}

// Whether (v, i) comes before (best, bestIndex) for argmax (largest) or argmin: NaN first, then
// the extreme value, and on a tie (or two NaNs) the lower index.
__device__ __forceinline__ bool arg_before(bool largest, float v, long long i, float best, long long bestIndex) {
    bool vn = isnan(v), bn = isnan(best);
    if (vn || bn) return vn && (!bn || i < bestIndex);
    if (v != best) return largest ? v > best : v < best;
    return i < bestIndex;
}

// argmax (largest = 1) or argmin over one dim of extent >= 1, laid out as reduce_f32.
extern "C" __global__ void argreduce_f32(long long* __restrict__ out, const float* __restrict__ x, Strided outer,
                                         long long stride, long long count, long long extent, int largest) {
    long long* index = (long long*)reduce_scratch;
    float* value = (float*)(index + blockDim.x);
    for (long long o = blockIdx.x; o < count; o += gridDim.x) {
        long long base = strided_offset(outer, o);
        float best = 0.0f;
        long long bestIndex = -1;
        for (long long j = threadIdx.x; j < extent; j += blockDim.x) {
            float v = x[base + j * stride];
            if (bestIndex < 0 || arg_before(largest, v, j, best, bestIndex)) { best = v; bestIndex = j; }
        }
        value[threadIdx.x] = best;
        index[threadIdx.x] = bestIndex;
        __syncthreads();
        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
            if (threadIdx.x < s) {
                long long other = index[threadIdx.x + s];
                if (other >= 0 && (index[threadIdx.x] < 0
                                   || arg_before(largest, value[threadIdx.x + s], other, value[threadIdx.x], index[threadIdx.x]))) {
                    value[threadIdx.x] = value[threadIdx.x + s];
                    index[threadIdx.x] = other;
                }
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) out[o] = index[0];
        __syncthreads();
    }
}

// Inclusive prefix sums along one dim, one thread per row (a sequential double accumulator, as
// the reference sums); out is contiguous in x's shape.
extern "C" __global__ void cumsum_f32(float* __restrict__ out, Strided outerOut, long long outStride,
                                      const float* __restrict__ x, Strided outerX, long long xStride, long long rows,
                                      long long extent) {
    GRID_STRIDE(r, rows) {
        long long xb = strided_offset(outerX, r), ob = strided_offset(outerOut, r);
        double acc = 0.0;
        for (long long i = 0; i < extent; ++i) {
            acc += (double)x[xb + i * xStride];
            out[ob + i * outStride] = (float)acc;
        }
    }
}

// Whether element (a, i) ranks before (b, j) in top-k order: by value (NaN above every number,
// -0 equal to +0), largest or smallest first, and equal values in index order.
__device__ __forceinline__ bool topk_before(bool largest, float a, long long i, float b, long long j) {
    bool an = isnan(a), bn = isnan(b);
    int cmp = (an || bn) ? (an == bn ? 0 : an ? 1 : -1) : (a < b ? -1 : a > b ? 1 : 0);
    if (cmp != 0) return largest ? cmp > 0 : cmp < 0;
    return i < j;
}

// The k first elements of each row in top-k order, one thread per row: output j is the first
// element after output j-1 in that (total) order, found by a scan of the row, so no scratch
// memory is needed (O(k * extent) per row).
extern "C" __global__ void topk_f32(float* __restrict__ values, long long* __restrict__ indices, Strided outerOut,
                                    long long outStride, const float* __restrict__ x, Strided outerX, long long xStride,
                                    long long rows, long long extent, long long k, int largest) {
    GRID_STRIDE(r, rows) {
        long long xb = strided_offset(outerX, r), ob = strided_offset(outerOut, r);
        float prev = 0.0f;
        long long prevIndex = -1;
        for (long long j = 0; j < k; ++j) {
            float best = 0.0f;
            long long bestIndex = -1;
            for (long long i = 0; i < extent; ++i) {
                float v = x[xb + i * xStride];
                if (prevIndex >= 0 && !topk_before(largest, prev, prevIndex, v, i)) continue;
                if (bestIndex < 0 || topk_before(largest, v, i, best, bestIndex)) { best = v; bestIndex = i; }
            }
            values[ob + j * outStride] = best;
            indices[ob + j * outStride] = bestIndex;
            prev = best;
            prevIndex = bestIndex;
        }
    }
}
