package dev.symbiont.core;

import dev.symbiont.core.backend.Philox;

/**
 * A seeded random source: a Philox4x32-10 stream named by a seed and a block offset, as
 * PyTorch's Philox generator keeps it. Random tensors are drawn on their backend
 * ({@link dev.symbiont.core.backend.Backend#random}) from the current offset, which then
 * advances by the blocks consumed (⌈n / 4⌉ for n elements), so the same seed gives the same
 * numbers on every backend and nothing is uploaded. The host draws ({@link #nextLong} and
 * the rest) use one block each from the same stream.
 */
public final class Generator {
    private long seed;
    private long offset;

    public Generator(long seed) { this.seed = seed; }

    /** The seed: the Philox key. */
    public long seed() { return seed; }

    /** The next unused block of the stream. */
    public long offset() { return offset; }

    /**
     * Reserves the blocks a tensor of {@code size} elements uses and returns the first; the
     * caller draws them with {@code Backend.random(kind, size, seed(), offset)}.
     */
    public long advance(int size) {
        if (size < 0) throw new IllegalArgumentException("Generator.advance: negative size " + size);
        long start = offset;
        offset += Philox.blocks(size);
        return start;
    }

    private int[] nextBlock() {
        int[] w = new int[4];
        Philox.block(seed, offset++, w);
        return w;
    }

    /** Words 0 and 1 of the next block. */
    public long nextLong() {
        int[] w = nextBlock();
        return ((long) w[0] << 32) | (w[1] & 0xFFFFFFFFL);
    }

    /** Uniform in [0, 1) with 24 random bits: the value {@code Tensor.rand} would draw here. */
    public float nextFloat() { return Philox.uniform(nextBlock()[0]); }

    /** Uniform in [0, 1) with 53 random bits. */
    public double nextDouble() { return (nextLong() >>> 11) * 0x1.0p-53; }

    /** Uniform in [0, bound). */
    public int nextInt(int bound) {
        if (bound <= 0) throw new IllegalArgumentException("nextInt: bound must be positive, got " + bound);
        return (int) Math.floorMod(nextLong() >>> 1, (long) bound);
    }

    /** Standard normal: Box–Muller on words 0 and 1 of the next block, in double ({@link Philox}). */
    public double nextGaussian() {
        int[] w = nextBlock();
        return Philox.radius(w[0]) * StrictMath.cos(Philox.angle(w[1]));
    }

    /** The full state {seed, offset}, to save in a checkpoint and restore with {@link #setState}. */
    public long[] state() { return new long[] {seed, offset}; }

    /** Restores a state from {@link #state()}: the generator continues exactly where that one was. */
    public void setState(long[] words) {
        if (words.length != 2) throw new IllegalArgumentException("Generator.setState: expected 2 words {seed, offset}, got " + words.length);
        seed = words[0];
        offset = words[1];
    }
}
