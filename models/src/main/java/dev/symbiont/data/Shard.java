package dev.symbiont.data;

/**
 * Which part of each epoch one rank of a data-parallel job reads, as PyTorch's
 * {@code DistributedSampler}: the epoch's order (the same on every rank: one seed, one epoch) is
 * padded by repeating its start until its length is a multiple of {@code worldSize}, or with
 * {@code dropLast} cut to the largest such multiple, and rank r takes elements
 * {@code r, r + worldSize, r + 2·worldSize, ...} of it. Every rank thus gets the same number of
 * examples, the ranks' shards are disjoint apart from the padding, and together they cover the
 * epoch (all of it when padding, all but fewer than {@code worldSize} examples with drop-last).
 */
record Shard(int rank, int worldSize, boolean dropLast) {
    /** The whole epoch: a single rank. */
    static final Shard WHOLE = new Shard(0, 1, false);

    Shard {
        if (worldSize < 1) throw new IllegalArgumentException("data loader: shard worldSize must be >= 1, got " + worldSize);
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("data loader: shard rank must be in [0, " + worldSize + ") for worldSize " + worldSize
                    + ", got " + rank);
        }
    }

    /** Examples this rank reads from an epoch of {@code n}: ⌈n / worldSize⌉, or ⌊n / worldSize⌋ with drop-last. */
    int samples(int n) { return dropLast ? n / worldSize : (int) (((long) n + worldSize - 1) / worldSize); }

    /** This rank's part of {@code epochOrder}, in order. */
    int[] of(int[] epochOrder) {
        if (worldSize == 1) return epochOrder;
        int n = epochOrder.length;
        int[] mine = new int[samples(n)];
        for (int i = 0; i < mine.length; i++) {
            long position = rank + (long) i * worldSize;
            mine[i] = epochOrder[(int) (position % n)]; // past the end: the padding repeats the start
        }
        return mine;
    }
}
