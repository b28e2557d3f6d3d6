// Casts between the SPI's dtypes, as the reference backend makes them: an integer source is
// read as a 64-bit integer, a floating one as float32, then written in the target type (float to
// integer truncates toward zero, saturating, NaN to 0; to bf16/f16 rounds to nearest even).
// cvt.rzi saturates and maps NaN to 0 exactly as Java's (int) and (long) casts do.
#include "common.cuh"
#include "halfs.cuh"


#define FROM_LONG(NAME, TI, TO, CONVERT)                                                        \
    extern "C" __global__ void NAME(TO* __restrict__ out, const TI* __restrict__ x, Strided s, \
                                    long long n) {                                             \
        GRID_STRIDE(i, n) {                                                                    \
            long long v = (long long)x[strided_offset(s, i)];                                  \
            out[i] = CONVERT;                                                                  \
        }                                                                                      \
    }

#define FROM_FLOAT(NAME, TI, READ, TO, CONVERT)                                                \
    extern "C" __global__ void NAME(TO* __restrict__ out, const TI* __restrict__ x, Strided s, \
                                    long long n) {                                             \
        GRID_STRIDE(i, n) {                                                                    \
            TI raw = x[strided_offset(s, i)];                                                  \
            float v = READ;                                                                    \
            out[i] = CONVERT;                                                                  \
        }                                                                                      \
    }

#define LONG_TARGETS(FROM, TI)                                                                 \
    FROM_LONG(cast_##FROM##_f32, TI, float, (float)v)                                          \
    FROM_LONG(cast_##FROM##_i32, TI, int, (int)v)                                              \
    FROM_LONG(cast_##FROM##_i64, TI, long long, v)                                             \
    FROM_LONG(cast_##FROM##_bf16, TI, unsigned short, float_to_bf16((float)v))                 \
    FROM_LONG(cast_##FROM##_f16, TI, unsigned short, float_to_f16((float)v))

#define FLOAT_TARGETS(FROM, TI, READ)                                                          \
    FROM_FLOAT(cast_##FROM##_f32, TI, READ, float, v)                                          \
    FROM_FLOAT(cast_##FROM##_i32, TI, READ, int, (int)v)                                       \
    FROM_FLOAT(cast_##FROM##_i64, TI, READ, long long, (long long)v)                           \
    FROM_FLOAT(cast_##FROM##_bf16, TI, READ, unsigned short, float_to_bf16(v))                 \
    FROM_FLOAT(cast_##FROM##_f16, TI, READ, unsigned short, float_to_f16(v))

LONG_TARGETS(i32, int)
LONG_TARGETS(i64, long long)
FLOAT_TARGETS(f32, float, raw)
FLOAT_TARGETS(bf16, unsigned short, bf16_to_float(raw))
FLOAT_TARGETS(f16, unsigned short, f16_to_float(raw))

// n copies of a value whose bits the host made (as the reference's full converts it).
// A 16-bit value travels as a 32-bit parameter (kernel arguments are 4 or 8 bytes here).
#define FILL(NAME, T, P) \
    extern "C" __global__ void NAME(T* __restrict__ out, P value, long long n) { GRID_STRIDE(i, n) out[i] = (T)value; }

FILL(fill_u16, unsigned short, unsigned int)
FILL(fill_u32, unsigned int, unsigned int)
FILL(fill_u64, unsigned long long, unsigned long long)
