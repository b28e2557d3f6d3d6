package dev.symbiont.data;

import dev.symbiont.core.Generator;

/**
 * Derives independent random streams from one seed, so that "example i" or "the order of epoch
 * e" is a pure function of (seed, i) and can be recomputed in any order, on any thread.
 */
public final class Seeds {
    private Seeds() {}

    /** A well-mixed 64-bit seed for stream {@code stream} of {@code seed}. */
    public static long mix(long seed, long stream) {
        // Finalise the seed first so nearby seeds (1, 2, 3) land far apart before the stream is added.
        return fmix(fmix(seed) + stream * 0x9E3779B97F4A7C15L);
    }

    /** A fresh generator for stream {@code stream} of {@code seed}. */
    public static Generator generator(long seed, long stream) {
        return new Generator(mix(seed, stream));
    }

    /** 0, 1, ..., n−1 in the random order {@code random} draws (torch.randperm; a Fisher–Yates shuffle). */
    public static int[] randperm(int n, Generator random) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) order[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i]; order[i] = order[j]; order[j] = t;
        }
        return order;
    }

    /** The SplitMix64 / MurmurHash3 finaliser: a bijection that spreads every input bit. */
    private static long fmix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
