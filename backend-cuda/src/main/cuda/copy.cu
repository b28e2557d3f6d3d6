// Copies between layouts, by element width: every dtype of the SPI is 2, 4 or 8 bytes, and a
// copy moves bits, so one kernel per width serves them all (f32 and i32 share copy_u32).
#include "common.cuh"

// dst (contiguous, n elements) = src seen through s.
#define GATHER(NAME, T)                                                                      \
    extern "C" __global__ void NAME(T* __restrict__ dst, const T* __restrict__ src, Strided s, \
                                    long long n) {                                           \
        GRID_STRIDE(i, n) dst[i] = src[strided_offset(s, i)];                                \
    }

// dst seen through d = src seen through s (same shape, n elements; no overlap: the host
// copies an overlapping source to a fresh buffer first).
#define SCATTER(NAME, T)                                                                       \
    extern "C" __global__ void NAME(T* __restrict__ dst, Strided d, const T* __restrict__ src, \
                                    Strided s, long long n) {                                  \
        GRID_STRIDE(i, n) dst[strided_offset(d, i)] = src[strided_offset(s, i)];               \
    }

GATHER(copy_u16, unsigned short)
GATHER(copy_u32, unsigned int)
GATHER(copy_u64, unsigned long long)
SCATTER(copy_into_u16, unsigned short)
SCATTER(copy_into_u32, unsigned int)
SCATTER(copy_into_u64, unsigned long long)
