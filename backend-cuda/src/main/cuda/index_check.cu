// The SPI's index check (Backend.checkIndex) on the device: ids (int32 or int64, any layout) are
// checked against [0, bound); the contiguous int64 ids come out with ignored ones as 0, with a
// float32 keep mask. A bad id does not stop the stream: the kernel records its position p in the
// check's first error slot as atomicMax(slot, ~p), so the lowest bad position wins, as the
// reference's first-in-order error does (see dev.symbiont.cuda.DeviceErrors); check_index_value_*
// then keeps that id in the second slot for the message, independent of the caller's buffers.
#include "common.cuh"

template <typename T>
__device__ __forceinline__ void check_index(long long* out_ids, float* keep, const T* ids, Strided layout, long long n,
                                            long long bound, int has_ignore, long long ignore,
                                            unsigned long long* error_slot) {
    GRID_STRIDE(i, n) {
        long long v = (long long)ids[strided_offset(layout, i)];
        if (has_ignore && v == ignore) {
            out_ids[i] = 0;
            keep[i] = 0.0f;
        } else {
            if (v < 0 || v >= bound) atomicMax(error_slot, ~(unsigned long long)i);
            out_ids[i] = v;
            keep[i] = 1.0f;
        }
    }
}

extern "C" __global__ void check_index_i32(long long* out_ids, float* keep, const int* ids, Strided layout, long long n,
                                           long long bound, int has_ignore, long long ignore,
                                           unsigned long long* error_slot) {
    check_index(out_ids, keep, ids, layout, n, bound, has_ignore, ignore, error_slot);
}

extern "C" __global__ void check_index_i64(long long* out_ids, float* keep, const long long* ids, Strided layout,
                                           long long n, long long bound, int has_ignore, long long ignore,
                                           unsigned long long* error_slot) {
    check_index(out_ids, keep, ids, layout, n, bound, has_ignore, ignore, error_slot);
}

// One thread, after check_index_*: the id at the recorded bad position, if any, into slots[1].
template <typename T>
__device__ __forceinline__ void check_index_value(const T* ids, Strided layout, unsigned long long* slots) {
    unsigned long long word = slots[0];
    if (word != 0) slots[1] = (unsigned long long)(long long)ids[strided_offset(layout, (long long)~word)];
}

extern "C" __global__ void check_index_value_i32(const int* ids, Strided layout, unsigned long long* slots) {
    check_index_value(ids, layout, slots);
}

extern "C" __global__ void check_index_value_i64(const long long* ids, Strided layout, unsigned long long* slots) {
    check_index_value(ids, layout, slots);
}
