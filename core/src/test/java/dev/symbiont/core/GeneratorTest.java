package dev.symbiont.core;

import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The seeded generator: reproducible, in range, and the same numbers on every backend. */
class GeneratorTest {

    @Test
    void theSameSeedGivesTheSameSequence() {
        Generator a = new Generator(99), b = new Generator(99);
        for (int i = 0; i < 1000; i++) {
            assertEquals(a.nextLong(), b.nextLong());
            assertEquals(a.nextGaussian(), b.nextGaussian());
            assertEquals(a.nextFloat(), b.nextFloat());
            assertEquals(a.nextInt(17), b.nextInt(17));
        }
    }

    @Test
    void differentSeedsGiveDifferentSequences() {
        assertFalse(new Generator(1).nextLong() == new Generator(2).nextLong());
    }

    @Test
    void theSequenceIsPinnedByThePhiloxKnownAnswer() {
        // Seed 0, block 0 is Philox4x32-10 of counter 0 under key 0: 6627e8d5 e169c58d bc57ac4c 9b00dbd8.
        assertEquals(0x6627e8d5_e169c58dL, new Generator(0).nextLong());
        float[] u = Tensor.rand(new Generator(0), 4).toFloatArray();
        assertArrayEquals(new float[] {0x6627e8 * 0x1.0p-24f, 0xe169c5 * 0x1.0p-24f, 0xbc57ac * 0x1.0p-24f, 0x9b00db * 0x1.0p-24f}, u);
    }

    @Test
    void aTensorAdvancesTheOffsetByTheBlocksItUsesAndTheStateRestoresIt() {
        Generator g = new Generator(5);
        Tensor.randn(g, 3, 3);                      // 9 elements: 3 blocks
        assertArrayEquals(new long[] {5, 3}, g.state());
        long[] saved = g.state();
        float[] a = Tensor.rand(g, 10).toFloatArray();
        long b = g.nextLong();
        g.setState(saved);
        assertArrayEquals(a, Tensor.rand(g, 10).toFloatArray());
        assertEquals(b, g.nextLong());
        assertArrayEquals(new long[] {5, 7}, g.state());
        assertThrows(IllegalArgumentException.class, () -> g.setState(new long[] {1}));
    }

    @Test
    void twoSmallDrawsGiveTheSameValuesAsOneLargeOneWhenTheyFillWholeBlocks() {
        Generator one = new Generator(9), two = new Generator(9);
        float[] whole = Tensor.randn(one, 24).toFloatArray();
        float[] first = Tensor.randn(two, 8).toFloatArray(), second = Tensor.randn(two, 16).toFloatArray();
        for (int i = 0; i < 8; i++) assertEquals(whole[i], first[i]);
        for (int i = 0; i < 16; i++) assertEquals(whole[8 + i], second[i]);
    }

    @Test
    void uniformValuesStayInRangeAndLookUniform() {
        Generator g = new Generator(3);
        double sum = 0;
        int[] buckets = new int[10];
        for (int i = 0; i < 100_000; i++) {
            float f = g.nextFloat();
            assertTrue(f >= 0f && f < 1f);
            double d = g.nextDouble();
            assertTrue(d >= 0 && d < 1);
            int k = g.nextInt(10);
            assertTrue(k >= 0 && k < 10);
            buckets[k]++;
            sum += f;
        }
        assertEquals(0.5, sum / 100_000, 0.01);
        for (int b : buckets) assertEquals(10_000, b, 600);
        assertThrows(IllegalArgumentException.class, () -> g.nextInt(0));
    }

    @Test
    void gaussianValuesHaveZeroMeanAndUnitVariance() {
        Generator g = new Generator(4);
        double sum = 0, sq = 0;
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            double x = g.nextGaussian();
            assertTrue(Double.isFinite(x));
            sum += x;
            sq += x * x;
        }
        assertEquals(0, sum / n, 0.02);
        assertEquals(1, sq / n - (sum / n) * (sum / n), 0.03);
    }

    @Test
    void randomTensorsAreTheSameOnEveryBackend() {
        float[] a, b;
        try (var s = Backends.use(new ReferenceBackend())) { a = Tensor.randn(new Generator(8), 5, 7).toFloatArray(); }
        try (var s = Backends.use(new ReferenceBackend())) { b = Tensor.randn(new Generator(8), 5, 7).toFloatArray(); }
        assertArrayEquals(a, b);
        float[] u = Tensor.rand(new Generator(8), 100).toFloatArray();
        for (float f : u) assertTrue(f >= 0 && f < 1);
    }
}
