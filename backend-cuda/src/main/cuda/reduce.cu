// Reductions and cumsum over float32 with the reference backend's results: sums accumulate in
// double in the reference's order, max/min propagate NaN (Java's Math.max/min, +0 above -0), and
// argmax/argmin give the first extreme index, a NaN counting as the extreme.
// One thread per output slice (grid-stride): slices are walked in row-major order, as the reference does.
#include "common.cuh"

enum Reduce { SUM = 0, MAX = 1, MIN = 2 };

__device__ __forceinline__ float java_max(float m, float v) {
    if (v != v || m != m) return __int_as_float(0x7fc00000);
    if (v > m || (v == 0.0f && m == 0.0f && !signbit(v))) return v;
    return m;
}

__device__ __forceinline__ float java_min(float m, float v) {
    if (v != v || m != m) return __int_as_float(0x7fc00000);
    if (v < m || (v == 0.0f && m == 0.0f && signbit(v))) return v;
    return m;
}

// out[o] = op over the slice at outer's o-th base, the slice's offsets from `inner` (offset 0).
extern "C" __global__ void reduce_f32(float* out, const float* x, Strided outer, Strided inner,
                                      long long count, long long sliceSize, int op) {
    GRID_STRIDE(o, count) {
        long long base = strided_offset(outer, o);
        double sum = 0.0;
        float m = op == MAX ? __int_as_float(0xff800000) : __int_as_float(0x7f800000);
        for (long long r = 0; r < sliceSize; ++r) {
            float v = x[base + strided_offset(inner, r)];
            if (op == SUM) sum += (double)v;
            else m = op == MAX ? java_max(m, v) : java_min(m, v);
        }
        out[o] = op == SUM ? (float)sum : m;
    }
}

// The first index of the maximum (isMax) or minimum along a dim of `size` elements `stride` apart.
extern "C" __global__ void argreduce_f32(long long* out, const float* x, Strided outer,
                                         long long count, long long size, long long stride, int isMax) {
    GRID_STRIDE(o, count) {
        long long base = strided_offset(outer, o);
        float best = x[base];
        long long at = 0;
        for (long long i = 1; i < size && best == best; ++i) {
            float v = x[base + i * stride];
            if (v != v || (isMax ? v > best : v < best)) { best = v; at = i; }
        }
        out[o] = at;
    }
}

// Running sums along a dim (double accumulation), one thread per line; out is contiguous.
extern "C" __global__ void cumsum_f32(float* out, const float* x, Strided xOuter, Strided outOuter,
                                      long long count, long long size, long long xStride, long long outStride) {
    GRID_STRIDE(o, count) {
        long long xBase = strided_offset(xOuter, o), outBase = strided_offset(outOuter, o);
        double acc = 0.0;
        for (long long i = 0; i < size; ++i) {
            acc += (double)x[xBase + i * xStride];
            out[outBase + i * outStride] = (float)acc;
        }
    }
}

// -1, 0 or 1 in numeric order where -0 equals +0 and NaN is above everything (equal to NaN).
__device__ __forceinline__ int compare_nan_highest(float a, float b) {
    bool an = a != a, bn = b != b;
    if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
    return a < b ? -1 : (a > b ? 1 : 0);
}

// Top-k by rank: each thread takes one element of one line and counts the elements that rank
// before it (better value, or equal value at a lower index: a stable order), then writes itself
// to that rank when it is below k. O(size) work per element, no shared memory, so any line
// length is handled alike; values and indices are contiguous with the dim of size k.
extern "C" __global__ void topk_f32(float* values, long long* indices, const float* x,
                                    Strided xOuter, Strided outOuter, long long lines, long long size,
                                    long long xStride, long long outStride, long long k, int largest) {
    GRID_STRIDE(e, lines * size) {
        long long line = e / size, i = e - line * size;
        long long xBase = strided_offset(xOuter, line);
        float v = x[xBase + i * xStride];
        long long rank = 0;
        for (long long j = 0; j < size && rank < k; ++j) {
            int c = compare_nan_highest(x[xBase + j * xStride], v);
            if (!largest) c = -c;
            if (c > 0 || (c == 0 && j < i)) ++rank;
        }
        if (rank < k) {
            long long at = strided_offset(outOuter, line) + rank * outStride;
            values[at] = v;
            indices[at] = i;
        }
    }
}
