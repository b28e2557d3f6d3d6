package dev.symbiont.text.hf;

import java.util.Arrays;

/**
 * Applies BPE merges to one word, Hugging Face's {@code Word::merge_all}: every adjacent pair with
 * a merge waits in a min-heap ordered by rank, then position; the best is merged, and the pairs
 * it forms with its neighbours join the heap. Entries left stale by an earlier merge are skipped
 * when the pair now at their place would not make the same token. O(n log n) for n symbols,
 * where re-scanning for the best pair after each merge is O(n²).
 */
final class WordMerger {
    private WordMerger() {}

    /**
     * The ids of {@code symbols[0, n)} after merging; {@code result[r]} is the id merge rank r makes.
     */
    static int[] merge(int[] symbols, int n, PairRanks ranks, int[] result) {
        if (n < 2) return Arrays.copyOf(symbols, n);
        int[] sym = Arrays.copyOf(symbols, n);
        int[] prev = new int[n], next = new int[n];
        boolean[] removed = new boolean[n];
        for (int i = 0; i < n; i++) {
            prev[i] = i - 1;
            next[i] = i + 1 < n ? i + 1 : -1;
        }
        LongHeap heap = new LongHeap(n);
        for (int i = 0; i + 1 < n; i++) push(heap, ranks.get(sym[i], sym[i + 1]), i);
        int left = n;
        while (!heap.isEmpty()) {
            long top = heap.poll();
            int rank = (int) (top >>> 32), pos = (int) top;
            int right = next[pos];
            if (removed[pos] || right < 0) continue;
            int now = ranks.get(sym[pos], sym[right]);
            if (now < 0 || result[now] != result[rank]) continue;
            sym[pos] = result[rank];
            removed[right] = true;
            left--;
            next[pos] = next[right];
            if (next[pos] >= 0) prev[next[pos]] = pos;
            if (prev[pos] >= 0) push(heap, ranks.get(sym[prev[pos]], sym[pos]), prev[pos]);
            if (next[pos] >= 0) push(heap, ranks.get(sym[pos], sym[next[pos]]), pos);
        }
        int[] out = new int[left];
        for (int i = 0, k = 0; i >= 0; i = next[i]) out[k++] = sym[i];
        return out;
    }

    private static void push(LongHeap heap, int rank, int pos) {
        if (rank >= 0) heap.add(((long) rank << 32) | pos);
    }

    /** A binary min-heap of longs (rank in the high half, position in the low). */
    private static final class LongHeap {
        private long[] items;
        private int size;

        LongHeap(int capacity) { items = new long[Math.max(4, capacity)]; }

        boolean isEmpty() { return size == 0; }

        void add(long v) {
            if (size == items.length) items = Arrays.copyOf(items, size * 2);
            int i = size++;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (items[parent] <= v) break;
                items[i] = items[parent];
                i = parent;
            }
            items[i] = v;
        }

        long poll() {
            long top = items[0];
            long last = items[--size];
            int i = 0;
            while (true) {
                int child = 2 * i + 1;
                if (child >= size) break;
                if (child + 1 < size && items[child + 1] < items[child]) child++;
                if (items[child] >= last) break;
                items[i] = items[child];
                i = child;
            }
            items[i] = last;
            return top;
        }
    }
}
