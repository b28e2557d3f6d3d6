package dev.symbiont.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** bfloat16 and float16 conversions: round to nearest even, overflow, subnormals, NaN. */
class HalfTest {

    private static short bf16(int floatBits) { return Half.floatToBf16(Float.intBitsToFloat(floatBits)); }

    private static void assertBits(int expected, short actual) {
        assertEquals(expected & 0xffff, actual & 0xffff, () -> String.format("expected 0x%04x, got 0x%04x", expected & 0xffff, actual & 0xffff));
    }

    @Test
    void bf16KeepsExactValuesAndRoundsTiesToEven() {
        assertBits(0x3f80, Half.floatToBf16(1f));
        assertBits(0xc000, Half.floatToBf16(-2f));
        assertBits(0x3f80, bf16(0x3f808000)); // halfway, lower is even
        assertBits(0x3f82, bf16(0x3f818000)); // halfway, upper is even
        assertBits(0x3f81, bf16(0x3f808001)); // just above halfway
        assertBits(0x3f80, bf16(0x3f807fff)); // just below halfway
        assertBits(0x8000, Half.floatToBf16(-0f));
    }

    @Test
    void bf16OverflowsToInfinityAndKeepsInfinities() {
        assertBits(0x7f80, Half.floatToBf16(Float.MAX_VALUE));
        assertBits(0xff80, Half.floatToBf16(-Float.MAX_VALUE));
        assertBits(0x7f80, Half.floatToBf16(Float.POSITIVE_INFINITY));
        assertBits(0x7f7f, bf16(0x7f7f7fff)); // largest finite bf16 stays finite
    }

    @Test
    void bf16HandlesSubnormals() {
        assertBits(0x0001, bf16(0x00010000));
        assertBits(0x0000, Half.floatToBf16(Float.MIN_VALUE));
        assertBits(0x0002, bf16(0x00018000)); // tie between 1 and 2 ulps: even
        assertEquals(Float.intBitsToFloat(0x00010000), Half.bf16ToFloat((short) 0x0001));
    }

    @Test
    void bf16KeepsNaNsAsNaNsIncludingSignallingOnes() {
        assertTrue(Float.isNaN(Half.bf16ToFloat(Half.floatToBf16(Float.NaN))));
        assertTrue(Float.isNaN(Half.bf16ToFloat(bf16(0x7f800001)))); // would round to infinity if treated as a number
        assertTrue(Float.isNaN(Half.bf16ToFloat(bf16(0xffffffff))));
    }

    @Test
    void bf16RoundingAgreesWithNearestNeighbourForManyFloats() {
        Generator g = new Generator(5);
        for (int i = 0; i < 200_000; i++) {
            int bits = (int) g.nextLong();
            float x = Float.intBitsToFloat(bits);
            if (Float.isNaN(x)) continue;
            int lower = bits >>> 16;             // truncated toward zero in magnitude
            double lo = Half.bf16ToFloat((short) lower);
            double hi = (lower & 0x7fff) == 0x7f7f ? Math.copySign(0x1p128, x) : Half.bf16ToFloat((short) (lower + 1));
            if (Float.isInfinite(x)) continue;
            double dLo = Math.abs(x - lo), dHi = Math.abs(hi - x);
            int expected = dLo < dHi ? lower : dHi < dLo ? lower + 1 : ((lower & 1) == 0 ? lower : lower + 1);
            assertBits(expected, Half.floatToBf16(x));
        }
    }

    @Test
    void everyBf16AndF16ValueSurvivesARoundTrip() {
        for (int b = 0; b < 0x10000; b++) {
            short bits = (short) b;
            float fb = Half.bf16ToFloat(bits);
            if (Float.isNaN(fb)) assertTrue(Float.isNaN(Half.bf16ToFloat(Half.floatToBf16(fb))));
            else assertBits(b, Half.floatToBf16(fb));
            float fh = Half.f16ToFloat(bits);
            if (Float.isNaN(fh)) assertTrue(Float.isNaN(Half.f16ToFloat(Half.floatToF16(fh))));
            else assertBits(b, Half.floatToF16(fh));
        }
    }

    @Test
    void f16RoundsTiesToEvenAndOverflowsToInfinity() {
        assertBits(0x3c00, Half.floatToF16(1f));
        assertBits(0x3c00, Half.floatToF16(1f + 0x1p-11f));        // halfway, lower is even
        assertBits(0x3c02, Half.floatToF16(1f + 3 * 0x1p-11f));    // halfway, upper is even
        assertBits(0x7bff, Half.floatToF16(65504f));
        assertBits(0x7bff, Half.floatToF16(65519f));
        assertBits(0x7c00, Half.floatToF16(65520f));                // halfway to 2^16: rounds to even, which is infinity
        assertBits(0xfc00, Half.floatToF16(-1e6f));
        assertEquals(Float.POSITIVE_INFINITY, Half.f16ToFloat((short) 0x7c00));
    }

    @Test
    void f16HandlesSubnormalsAndNaN() {
        assertBits(0x0001, Half.floatToF16(0x1p-24f));
        assertBits(0x0000, Half.floatToF16(0x1p-25f));              // halfway to the smallest subnormal: even is 0
        assertBits(0x0002, Half.floatToF16(3 * 0x1p-25f));          // 1.5 ulps: even is 2
        assertBits(0x0001, Half.floatToF16(0x1.8p-25f * 1.01f));
        assertBits(0x8000, Half.floatToF16(-0x1p-26f));
        assertEquals(0x1p-24f, Half.f16ToFloat((short) 0x0001));
        assertTrue(Float.isNaN(Half.f16ToFloat(Half.floatToF16(Float.NaN))));
    }

    @Test
    void castingTensorsToHalvesRoundsLikeHalf() {
        float[] v = {1f + 0x1p-11f, 65520f, 0x1p-25f, -0f, Float.NaN, 3.14159f};
        float[] f16 = Tensor.fromArray(v, v.length).to(DType.FLOAT16).toFloatArray();
        float[] bf16 = Tensor.fromArray(v, v.length).to(DType.BFLOAT16).toFloatArray();
        for (int i = 0; i < v.length; i++) {
            assertEquals(Half.f16ToFloat(Half.floatToF16(v[i])), f16[i], "f16 element " + i);
            assertEquals(Half.bf16ToFloat(Half.floatToBf16(v[i])), bf16[i], "bf16 element " + i);
        }
    }
}
