package dev.symbiont.core.backend;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Philox4x32-10 against Random123's known answers, and the stream and conversions built on it. */
class PhiloxTest {

    private static int[] block(int c0, int c1, int c2, int c3, int k0, int k1) {
        int[] out = new int[4];
        Philox.block(c0, c1, c2, c3, k0, k1, out);
        return out;
    }

    @Test
    void matchesRandom123KnownAnswerVectors() {
        // Random123 tests/kat_vectors, "philox4x32 10": counter, key, expected output.
        assertArrayEquals(new int[] {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
                block(0, 0, 0, 0, 0, 0));
        assertArrayEquals(new int[] {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
                block(0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff));
        assertArrayEquals(new int[] {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
                block(0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0));
    }

    @Test
    void streamBlocksPutTheBlockIndexInTheCounterAndTheSeedInTheKey() {
        int[] out = new int[4];
        Philox.block(0x299f31d0_a4093822L, 0x85a308d3_243f6a88L, out);
        // counter (lo, hi, 0, 0) and key (lo, hi): same words as the first two of the pi vector's counter.
        assertArrayEquals(block(0x243f6a88, 0x85a308d3, 0, 0, 0xa4093822, 0x299f31d0), out);
        Philox.block(0L, 0L, out);
        assertArrayEquals(new int[] {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}, out);
    }

    @Test
    void uniformsUseTheTop24BitsAndStayBelowOne() {
        assertEquals(0f, Philox.uniform(0));
        assertEquals(0x1.0p-24f, Philox.uniform(0x100));
        assertEquals(0x1.0p-24f, Philox.uniform(0x1ff));
        assertEquals(1f - 0x1.0p-24f, Philox.uniform(0xffffffff));
    }

    @Test
    void boxMullerRadiusIsFiniteAtBothEndsAndTheAngleCoversTheCircle() {
        assertEquals(0.0, Philox.radius(0xffffffff));                      // u1 = 1
        assertEquals(Math.sqrt(64 * Math.log(2)), Philox.radius(0), 1e-12); // u1 = 2^-32, the largest radius
        assertEquals(0.0, Philox.angle(0));
        assertTrue(Philox.angle(0xffffffff) < 2 * Math.PI);
    }

    @Test
    void aTensorUsesOneBlockPerFourElements() {
        assertEquals(0, Philox.blocks(0));
        assertEquals(1, Philox.blocks(1));
        assertEquals(1, Philox.blocks(4));
        assertEquals(2, Philox.blocks(5));
        assertEquals(1L << 29, Philox.blocks(Integer.MAX_VALUE));
    }

    @Test
    void elementsAreTheWordsOfTheirBlockInOrder() {
        float[] u = new float[6];
        Philox.fill(RandomKind.UNIFORM, u, 0, 6, 0, 0);
        assertEquals(Philox.uniform(0x6627e8d5), u[0]);
        assertEquals(Philox.uniform(0x9b00dbd8), u[3]);
        int[] next = new int[4];
        Philox.block(0L, 1L, next);
        assertEquals(Philox.uniform(next[1]), u[5]);

        float[] z = new float[4];
        Philox.fill(RandomKind.NORMAL, z, 0, 4, 0, 0);
        double r = Philox.radius(0xbc57ac4c), theta = Philox.angle(0x9b00dbd8);
        assertEquals((float) (r * StrictMath.cos(theta)), z[2]);
        assertEquals((float) (r * StrictMath.sin(theta)), z[3]);
    }

    @Test
    void anySubRangeGivesTheSameValuesAsTheWhole() {
        for (RandomKind kind : RandomKind.values()) {
            float[] whole = new float[103];
            Philox.fill(kind, whole, 0, whole.length, 77, 9);
            float[] pieces = new float[103];
            int[] cuts = {0, 1, 2, 7, 8, 50, 51, 99, 103};
            for (int c = 0; c + 1 < cuts.length; c++) Philox.fill(kind, pieces, cuts[c], cuts[c + 1], 77, 9);
            assertArrayEquals(whole, pieces, kind.name());
            // Starting 3 blocks later is the same stream shifted by 12 elements.
            float[] later = new float[91];
            Philox.fill(kind, later, 0, later.length, 77, 12);
            for (int i = 0; i < later.length; i++) assertEquals(whole[i + 12], later[i], kind + " element " + i);
        }
    }

    @Test
    void normalsHaveZeroMeanAndUnitVarianceAndUniformsAreFlat() {
        int n = 200_000;
        float[] z = new float[n], u = new float[n];
        Philox.fill(RandomKind.NORMAL, z, 0, n, 5, 0);
        Philox.fill(RandomKind.UNIFORM, u, 0, n, 5, 0);
        double sum = 0, sq = 0;
        int[] buckets = new int[10];
        for (int i = 0; i < n; i++) {
            sum += z[i];
            sq += (double) z[i] * z[i];
            assertTrue(u[i] >= 0 && u[i] < 1);
            buckets[(int) (u[i] * 10)]++;
        }
        assertEquals(0, sum / n, 0.01);
        assertEquals(1, sq / n - (sum / n) * (sum / n), 0.02);
        for (int b : buckets) assertEquals(n / 10, b, 600);
    }
}
