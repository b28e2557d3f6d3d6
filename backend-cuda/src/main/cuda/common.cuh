// Shared by every kernel group: the strided-layout struct the host passes by value
// (dev.symbiont.cuda.Strided) and the grid-stride loop every elementwise kernel runs.
#pragma once

#define MAX_RANK 8

// A layout in elements: shape and strides of `rank` dims from `offset`; 144 bytes, 8-aligned.
// rank -1: contiguous from offset (shape and strides unused).
struct Strided {
    long long shape[MAX_RANK];
    long long stride[MAX_RANK];
    long long offset;
    int rank;
    int pad;
};

// The storage offset of the element at row-major position i of the layout. A rank of -1 marks a
// contiguous layout (the host's fast path): no division at all.
__device__ __forceinline__ long long strided_offset(const Strided& s, long long i) {
    if (s.rank < 0) return s.offset + i;
    long long off = s.offset;
    for (int d = s.rank - 1; d >= 0; --d) {
        long long q = i / s.shape[d];
        off += (i - q * s.shape[d]) * s.stride[d];
        i = q;
    }
    return off;
}

// i runs over [0, n) across the whole grid, whatever the grid's size.
#define GRID_STRIDE(i, n) \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (long long)blockDim.x * gridDim.x)
