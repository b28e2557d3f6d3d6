package dev.symbiont.core;

/**
 * Exact conversions between float32 and the 16-bit storage types, rounding to nearest even.
 * Both directions handle NaN, infinities, subnormals and overflow the way IEEE 754 does.
 */
public final class Half {
    private Half() {}

    /** float32 to bfloat16 bits: the top 16 bits, rounded to nearest even; NaN stays a quiet NaN. */
    public static short floatToBf16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if ((bits & 0x7fffffff) > 0x7f800000) {
            return (short) ((bits >>> 16) | 0x0040);
        }
        int roundingBias = 0x7fff + ((bits >>> 16) & 1);
        return (short) ((bits + roundingBias) >>> 16);
    }

    /** bfloat16 bits to float32: exact. */
    public static float bf16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xffff) << 16);
    }

    /** float32 to IEEE binary16 bits, rounded to nearest even (the JDK's exact conversion). */
    public static short floatToF16(float value) {
        return Float.floatToFloat16(value);
    }

    /** IEEE binary16 bits to float32: exact. */
    public static float f16ToFloat(short bits) {
        return Float.float16ToFloat(bits);
    }
}
