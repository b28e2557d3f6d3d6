package dev.symbiont.data;

import dev.symbiont.core.Generator;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RandomSplitTest {
    private static Dataset<Integer> range(int n) {
        return Dataset.of(IntStream.range(0, n).boxed().toList());
    }

    private static int[] all(List<Subset<Integer>> parts) {
        return parts.stream().flatMapToInt(p -> IntStream.range(0, p.size()).map(p::get)).toArray();
    }

    @Test
    void subsetsAreDisjointAndCoverTheDataset() {
        List<Subset<Integer>> parts = RandomSplit.randomSplit(range(100), new int[] {70, 20, 10}, 5);
        assertEquals(List.of(70, 20, 10), parts.stream().map(Subset::size).toList());
        int[] seen = all(parts);
        assertEquals(100, seen.length);
        assertArrayEquals(IntStream.range(0, 100).toArray(), Arrays.stream(seen).sorted().toArray(), "each example exactly once");
        assertFalse(Arrays.equals(IntStream.range(0, 100).toArray(), seen), "the order is shuffled");
        // A subset's examples are the dataset's at its indices.
        Subset<Integer> first = parts.get(0);
        assertEquals(first.indices()[3], first.get(3));
    }

    @Test
    void theSameSeedGivesTheSameSplitAndAnotherSeedAnother() {
        int[] a = all(RandomSplit.randomSplit(range(50), new int[] {25, 25}, 42));
        int[] b = all(RandomSplit.randomSplit(range(50), new int[] {25, 25}, 42));
        int[] c = all(RandomSplit.randomSplit(range(50), new int[] {25, 25}, 43));
        int[] g = all(RandomSplit.randomSplit(range(50), new double[] {0.5, 0.5}, new Generator(42)));
        assertArrayEquals(a, b);
        assertArrayEquals(a, g, "a generator of the seed draws the same permutation");
        assertFalse(Arrays.equals(a, c));
    }

    @Test
    void fractionsRoundDownThenHandOutTheRemainderRoundRobinAsPyTorchDoes() {
        assertArrayEquals(new int[] {4, 3, 3}, RandomSplit.lengthsOf(new double[] {0.33, 0.33, 0.34}, 10));
        assertArrayEquals(new int[] {3, 2}, RandomSplit.lengthsOf(new double[] {0.5, 0.5}, 5));
        assertArrayEquals(new int[] {2, 2, 2, 1}, RandomSplit.lengthsOf(new double[] {0.25, 0.25, 0.25, 0.25}, 7));
        assertArrayEquals(new int[] {1, 0, 1}, RandomSplit.lengthsOf(new double[] {0.1, 0.1, 0.8}, 2));
        assertArrayEquals(new int[] {8, 2}, RandomSplit.lengthsOf(new double[] {0.8, 0.2}, 10));
        assertEquals(List.of(7, 3), RandomSplit.randomSplit(range(10), new double[] {0.7, 0.3}, 1).stream().map(Subset::size).toList());
    }

    @Test
    void badLengthsAndFractionsAreNamed() {
        var sum = assertThrows(IllegalArgumentException.class, () -> RandomSplit.randomSplit(range(10), new int[] {3, 4}, 1));
        assertTrue(sum.getMessage().contains("[3, 4]") && sum.getMessage().contains("7") && sum.getMessage().contains("10"),
                sum.getMessage());
        var negative = assertThrows(IllegalArgumentException.class, () -> RandomSplit.randomSplit(range(2), new int[] {3, -1}, 1));
        assertTrue(negative.getMessage().contains("-1") && negative.getMessage().contains("index 1"), negative.getMessage());
        var fractions = assertThrows(IllegalArgumentException.class,
                () -> RandomSplit.randomSplit(range(10), new double[] {0.5, 0.6}, 1));
        assertTrue(fractions.getMessage().contains("[0.5, 0.6]") && fractions.getMessage().contains("not 1"), fractions.getMessage());
        var outside = assertThrows(IllegalArgumentException.class, () -> RandomSplit.lengthsOf(new double[] {1.5, -0.5}, 10));
        assertTrue(outside.getMessage().contains("1.5") && outside.getMessage().contains("index 0"), outside.getMessage());
        assertThrows(IllegalArgumentException.class, () -> RandomSplit.lengthsOf(new double[] {Double.NaN, 1}, 10));
    }

    @Test
    void subsetPassesTheEpochAndChecksIndices() {
        Dataset<String> byEpoch = new Dataset<>() {
            @Override public int size() { return 3; }
            @Override public String get(int index) { return "x" + index; }
            @Override public String get(int index, int epoch) { return "x" + index + "@" + epoch; }
        };
        Subset<String> s = new Subset<>(byEpoch, new int[] {2, 0});
        assertEquals("x2@5", s.get(0, 5));
        assertEquals("x0", s.get(1));
        assertThrows(IndexOutOfBoundsException.class, () -> s.get(2));
        var e = assertThrows(IndexOutOfBoundsException.class, () -> new Subset<>(byEpoch, new int[] {0, 3}));
        assertTrue(e.getMessage().contains("3") && e.getMessage().contains("position 1"), e.getMessage());
    }
}
