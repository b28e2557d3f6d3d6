package dev.symbiont.text;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Learns byte-level BPE merges. The corpus is reduced once to its distinct chunks ("words")
 * with their counts; pair counts are kept incrementally, so a merge touches only the words that
 * contain the merged pair instead of recounting the corpus.
 *
 * <p>Each round merges the most frequent adjacent pair; ties go to the smallest (left, right)
 * ids, which makes the result independent of hash order and thread timing.
 */
final class BpeTrainer {
    private final int[][] words;   // symbol ids of each distinct chunk
    private final long[] counts;   // how often each chunk occurs
    private final Map<Long, Long> pairCounts = new HashMap<>();
    private final Map<Long, IntList> wordsWithPair = new HashMap<>(); // may hold stale entries; checked on use
    // Max-heap of {count, pair}; entries go stale when a count changes and are skipped on poll.
    private final PriorityQueue<long[]> heap = new PriorityQueue<>((x, y) ->
            x[0] != y[0] ? Long.compare(y[0], x[0]) : Long.compare(x[1], y[1]));
    private final int[] visited;   // round stamp per word, to visit each word once per merge
    private int[] tokenLength = new int[BpeTokenizer.BYTE_VOCAB]; // bytes per id, to keep tokens loadable

    private BpeTrainer(Map<String, Long> chunkCounts) {
        words = new int[chunkCounts.size()][];
        counts = new long[chunkCounts.size()];
        visited = new int[chunkCounts.size()];
        int w = 0;
        for (var e : chunkCounts.entrySet()) {
            byte[] bytes = e.getKey().getBytes(StandardCharsets.UTF_8);
            int[] symbols = new int[bytes.length];
            for (int i = 0; i < bytes.length; i++) symbols[i] = bytes[i] & 0xFF;
            words[w] = symbols;
            counts[w] = e.getValue();
            for (int i = 0; i + 1 < symbols.length; i++) {
                long pair = pair(symbols[i], symbols[i + 1]);
                pairCounts.merge(pair, counts[w], Long::sum);
                wordsWithPair.computeIfAbsent(pair, k -> new IntList()).add(w);
            }
            w++;
        }
        pairCounts.forEach((pair, count) -> heap.add(new long[] {count, pair}));
        Arrays.fill(tokenLength, 1);
    }

    /** Up to {@code numMerges} merges as {left, right}; merge r creates id 256 + r. Fewer when no pair is left. */
    static List<int[]> train(String corpus, int numMerges) {
        Map<String, Long> chunkCounts = new HashMap<>();
        for (String chunk : Pretokenizer.split(corpus)) chunkCounts.merge(chunk, 1L, Long::sum);
        return new BpeTrainer(chunkCounts).run(numMerges);
    }

    private List<int[]> run(int numMerges) {
        List<int[]> merges = new ArrayList<>(numMerges);
        for (int round = 1; round <= numMerges; round++) {
            long best = pollBest();
            if (best < 0) break;
            int left = (int) (best >>> 32), right = (int) best;
            int id = BpeTokenizer.BYTE_VOCAB + merges.size();
            merges.add(new int[] {left, right});
            if (tokenLength.length == id) tokenLength = Arrays.copyOf(tokenLength, id * 2);
            tokenLength[id] = tokenLength[left] + tokenLength[right];
            apply(best, left, right, id, round);
        }
        return merges;
    }

    /**
     * The most frequent pair still present whose token would not pass
     * {@link BpeTokenizer#MAX_TOKEN_BYTES}, or -1. A longer pair stays counted (later merges
     * update its count) but is never chosen.
     */
    private long pollBest() {
        while (!heap.isEmpty()) {
            long[] top = heap.poll();
            Long current = pairCounts.get(top[1]);
            if (current != null && current == top[0] && fits(top[1])) return top[1];
        }
        return -1;
    }

    private boolean fits(long pair) {
        return tokenLength[(int) (pair >>> 32)] + tokenLength[(int) pair] <= BpeTokenizer.MAX_TOKEN_BYTES;
    }

    /** Replaces (left, right) by id in every word holding it and updates the pair counts. */
    private void apply(long merged, int left, int right, int id, int round) {
        Map<Long, Long> delta = new HashMap<>();
        IntList holders = wordsWithPair.remove(merged);
        for (int k = 0; k < holders.size; k++) {
            int w = holders.items[k];
            if (visited[w] == round) continue;
            visited[w] = round;
            int[] before = words[w];
            int[] after = before.clone();
            int n = BpeTokenizer.mergeInPlace(after, after.length, left, right, id);
            if (n == before.length) continue; // stale entry: the pair left this word earlier
            after = Arrays.copyOf(after, n);
            long c = counts[w];
            for (int i = 0; i + 1 < before.length; i++) delta.merge(pair(before[i], before[i + 1]), -c, Long::sum);
            for (int i = 0; i + 1 < after.length; i++) {
                long p = pair(after[i], after[i + 1]);
                delta.merge(p, c, Long::sum);
                // Pairs without the new id were already adjacent before, so w is already listed for them.
                if (after[i] == id || after[i + 1] == id) wordsWithPair.computeIfAbsent(p, x -> new IntList()).add(w);
            }
            words[w] = after;
        }
        delta.forEach((p, d) -> {
            if (d == 0) return;
            long count = pairCounts.merge(p, d, Long::sum);
            if (count <= 0) {
                pairCounts.remove(p);
                wordsWithPair.remove(p);
            } else {
                heap.add(new long[] {count, p});
            }
        });
    }

    /** (left, right) as one long that orders like the pair: left first, then right. */
    static long pair(int left, int right) { return ((long) left << 32) | (right & 0xFFFFFFFFL); }

    /** A growable int array, to avoid boxing word indices. */
    private static final class IntList {
        int[] items = new int[4];
        int size;

        void add(int v) {
            if (size == items.length) items = Arrays.copyOf(items, size * 2);
            items[size++] = v;
        }
    }
}
