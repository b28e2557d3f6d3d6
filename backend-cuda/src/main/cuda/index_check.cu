// Index checks on the device. A bad id does not stop the stream: its row-major position p is
// recorded in a 64-bit error slot as atomicMax(slot, ~p), so the lowest bad position wins, and
// the host raises the SPI's message at its next synchronisation (dev.symbiont.cuda.DeviceErrors).
#include "common.cuh"

__device__ __forceinline__ void record_bad(unsigned long long* slot, long long position) {
    atomicMax(slot, ~(unsigned long long)position);
}

// Backend.checkIndex: ids (through s, n of them) each in [0, bound) or equal to ignore (when
// hasIgnore); writes the id (ignored and bad ones as 0) and keep (1 counted, 0 ignored or bad).
#define CHECK_INDEX(NAME, T)                                                                             \
    extern "C" __global__ void NAME(long long* __restrict__ safe, float* __restrict__ keep,               \
                                    const T* __restrict__ ids, Strided s, long long n, long long bound,   \
                                    long long ignore, int hasIgnore, unsigned long long* slot) {          \
        GRID_STRIDE(i, n) {                                                                              \
            long long v = (long long)ids[strided_offset(s, i)];                                          \
            bool ignored = hasIgnore && v == ignore;                                                     \
            bool bad = !ignored && (v < 0 || v >= bound);                                                \
            if (bad) record_bad(slot, i);                                                                \
            safe[i] = ignored || bad ? 0 : v;                                                            \
            keep[i] = ignored || bad ? 0.0f : 1.0f;                                                      \
        }                                                                                                \
    }

CHECK_INDEX(check_index_i32, int)
CHECK_INDEX(check_index_i64, long long)

// The indexing ops' range check: every index (through s, n of them) in [0, size).
#define CHECK_RANGE(NAME, T)                                                                                   \
    extern "C" __global__ void NAME(const T* __restrict__ ids, Strided s, long long n, long long size,         \
                                    unsigned long long* slot) {                                                \
        GRID_STRIDE(i, n) {                                                                                    \
            long long v = (long long)ids[strided_offset(s, i)];                                                \
            if (v < 0 || v >= size) record_bad(slot, i);                                                       \
        }                                                                                                      \
    }

CHECK_RANGE(check_range_i32, int)
CHECK_RANGE(check_range_i64, long long)
