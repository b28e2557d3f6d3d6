// Java's Math.max and Math.min on float, shared by the elementwise and reduction kernels.
#pragma once

// Math.max/min: NaN if either is NaN, and +0 above -0.
__device__ __forceinline__ float java_max(float a, float b) {
    if (isnan(a) || isnan(b)) return __int_as_float(0x7fc00000);
    if (a != b) return a > b ? a : b;
    return __int_as_float(__float_as_int(a) & __float_as_int(b));
}

__device__ __forceinline__ float java_min(float a, float b) {
    if (isnan(a) || isnan(b)) return __int_as_float(0x7fc00000);
    if (a != b) return a < b ? a : b;
    return __int_as_float(__float_as_int(a) | __float_as_int(b));
}
