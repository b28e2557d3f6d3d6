// bfloat16 and float16 conversions with the exact bits of dev.symbiont.core.Half (the JDK's
// Float.floatToFloat16 / float16ToFloat): round to nearest even, and NaN payloads kept as the JDK
// keeps them rather than the hardware's canonical NaN, so a cast gives the CPU backend's bits.
#pragma once

__device__ __forceinline__ unsigned short float_to_bf16(float value) {
    unsigned int bits = __float_as_uint(value);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((bits >> 16) | 0x0040u);
    unsigned int bias = 0x7fffu + ((bits >> 16) & 1u);
    return (unsigned short)((bits + bias) >> 16);
}

__device__ __forceinline__ float bf16_to_float(unsigned short h) { return __uint_as_float(((unsigned int)h) << 16); }

__device__ __forceinline__ unsigned short float_to_f16(float value) {
    unsigned int bits = __float_as_uint(value);
    unsigned int sign = (bits & 0x80000000u) >> 16;
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
        return (unsigned short)(sign | 0x7c00u | (bits & 0x007fe000u) >> 13 | (bits & 0x00001ff0u) >> 4 | (bits & 0x0000000fu));
    }
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(value));
    return h;
}

__device__ __forceinline__ float f16_to_float(unsigned short h) {
    unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
    unsigned int exponent = ((unsigned int)h >> 10) & 0x1fu;
    unsigned int mantissa = (unsigned int)h & 0x3ffu;
    if (exponent == 0x1fu) return __uint_as_float(sign | 0x7f800000u | (mantissa << 13)); // inf, NaN with its payload
    if (exponent == 0) {
        if (mantissa == 0) return __uint_as_float(sign);
        float magnitude = (float)mantissa * 5.9604644775390625e-8f;                          // subnormal: m · 2^-24, exact
        return sign ? -magnitude : magnitude;
    }
    return __uint_as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}
