package dev.symbiont.data;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code DataLoader.Builder.shard}: PyTorch's {@code DistributedSampler} on the loader. */
class ShardedLoaderTest {
    private static DataLoader<Integer, List<Integer>> loader(int n, int batch, int rank, int worldSize, boolean dropShard) {
        return DataLoader.builder(Dataset.of(IntStream.range(0, n).boxed().toList()), List::copyOf)
                .batchSize(batch).shuffle(42).shard(rank, worldSize, dropShard).build();
    }

    private static List<List<Integer>> batches(DataLoader<Integer, List<Integer>> l, int epoch, int start) {
        List<List<Integer>> all = new ArrayList<>();
        try (var it = l.epoch(epoch, start)) {
            for (List<Integer> b : it) all.add(b);
        }
        return all;
    }

    /** n examples over w ranks, padded: every index at least once, the repeats exactly the epoch order's first ones. */
    @ParameterizedTest
    @CsvSource({"10, 3", "12, 3", "10, 4", "2, 5", "7, 1"})
    void paddedShardsAreDisjointApartFromThePaddingAndCoverTheEpoch(int n, int w) {
        int[] whole = loader(n, 2, 0, 1, false).order(0);
        int per = (n + w - 1) / w;
        List<Integer> dealt = new ArrayList<>();
        for (int r = 0; r < w; r++) {
            int[] mine = loader(n, 2, r, w, false).order(0);
            assertEquals(per, mine.length, "rank " + r + " gets ⌈n/w⌉");
            for (int i = 0; i < per; i++) {
                int position = r + i * w;
                assertEquals(whole[position % n], mine[i], "rank " + r + " takes every w-th element from position r");
                dealt.add(mine[i]);
            }
        }
        Set<Integer> distinct = new HashSet<>(dealt);
        assertEquals(n, distinct.size(), "every example is dealt");
        assertEquals(per * w - n, dealt.size() - distinct.size(), "repeats only to pad to a multiple of w");
    }

    @Test
    void dropLastCutsTheEpochToAMultipleOfTheWorldSizeAndRepeatsNothing() {
        int n = 10, w = 3;
        int[] whole = loader(n, 2, 0, 1, false).order(0);
        Set<Integer> dealt = new HashSet<>();
        for (int r = 0; r < w; r++) {
            int[] mine = loader(n, 2, r, w, true).order(0);
            assertEquals(3, mine.length);
            for (int x : mine) assertTrue(dealt.add(x), "index " + x + " dealt twice");
        }
        Set<Integer> expected = new HashSet<>();
        for (int i = 0; i < 9; i++) expected.add(whole[i]);
        assertEquals(expected, dealt, "the first 9 of the epoch's order, the last one dropped");
    }

    @Test
    void theShardsReshuffleEachEpochAndDependOnlyOnSeedAndEpoch() {
        int[] e0 = loader(50, 4, 1, 3, false).order(0), e1 = loader(50, 4, 1, 3, false).order(1);
        assertFalse(Arrays.equals(e0, e1), "a new epoch deals a new order");
        assertArrayEquals(e1, loader(50, 4, 1, 3, false).order(1), "a pure function of (seed, epoch)");
    }

    @Test
    void everyRankGetsTheSameNumberOfBatchesAndTogetherTheUnshardedBatches() {
        int n = 23, w = 3, batch = 2;
        var whole = batches(loader(n, batch * w, 0, 1, false), 1, 0);
        List<List<List<Integer>>> perRank = new ArrayList<>();
        for (int r = 0; r < w; r++) {
            var l = loader(n, batch, r, w, false);
            assertEquals(4, l.batchesPerEpoch(), "⌈⌈23/3⌉ / 2⌉ on every rank");
            perRank.add(batches(l, 1, 0));
            assertEquals(4, perRank.get(r).size());
        }
        for (int b = 0; b < whole.size(); b++) {
            Set<Integer> together = new HashSet<>();
            for (var rank : perRank) together.addAll(rank.get(b));
            Set<Integer> expected = new HashSet<>(whole.get(b));
            // The unsharded loader's last batch holds 5; the padded shards' 24th example is the epoch's first again.
            if (b == whole.size() - 1) expected.add(whole.get(0).get(0));
            assertEquals(expected, together, "batch " + b);
        }
    }

    @Test
    void resumingAtABatchSeesTheSameBatchesAsAnUninterruptedRun() {
        var l = loader(40, 3, 2, 4, false);
        var full = batches(l, 5, 0);
        assertEquals(full.subList(2, full.size()), batches(l, 5, 2));
        assertEquals(l.batch(5, 3), full.get(3));
    }

    @Test
    void badShardsAreRejectedNamingTheValues() {
        var b = DataLoader.builder(Dataset.of(List.of(1, 2, 3)), List::copyOf);
        var rank = assertThrows(IllegalArgumentException.class, () -> b.shard(3, 3));
        assertTrue(rank.getMessage().contains("rank") && rank.getMessage().contains("3") && rank.getMessage().contains("[0, 3)"), rank.getMessage());
        var negative = assertThrows(IllegalArgumentException.class, () -> b.shard(-1, 2));
        assertTrue(negative.getMessage().contains("-1"), negative.getMessage());
        var size = assertThrows(IllegalArgumentException.class, () -> b.shard(0, 0));
        assertTrue(size.getMessage().contains("worldSize") && size.getMessage().contains("0"), size.getMessage());
    }
}
