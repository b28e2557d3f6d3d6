package dev.symbiont.text.hf;

/**
 * The merges of a BPE model: the pair of ids (left, right) to its rank, in an open-addressing
 * table of primitives (a boxed map of GPT-2's 50,000 merges, or Llama 3's 280,000, costs several
 * times the memory and a pointer chase per lookup in the merge loop).
 */
final class PairRanks {
    private static final long EMPTY = -1L; // ids are never negative, so no pair has this key
    private final long[] keys;
    private final int[] ranks;
    private final int mask;

    PairRanks(int expected) {
        int capacity = Integer.highestOneBit(Math.max(16, expected * 2 - 1)) << 1;
        keys = new long[capacity];
        ranks = new int[capacity];
        mask = capacity - 1;
        java.util.Arrays.fill(keys, EMPTY);
    }

    /** Sets the rank of (left, right), replacing an earlier one: a repeated merge keeps its last rank, as in Hugging Face. */
    void put(int left, int right, int rank) {
        long key = key(left, right);
        int slot = slot(key);
        keys[slot] = key;
        ranks[slot] = rank;
    }

    /** The rank of (left, right), or -1 when they do not merge. */
    int get(int left, int right) {
        long key = key(left, right);
        int slot = slot(key);
        return keys[slot] == key ? ranks[slot] : -1;
    }

    /** The slot holding {@code key}, or the empty one where it belongs. */
    private int slot(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        int slot = (int) (h ^ (h >>> 32)) & mask;
        while (keys[slot] != EMPTY && keys[slot] != key) slot = (slot + 1) & mask;
        return slot;
    }

    private static long key(int left, int right) {
        return ((long) left << 32) | (right & 0xFFFFFFFFL);
    }
}
