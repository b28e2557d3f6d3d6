package dev.symbiont.core;

/**
 * A seeded random source (SplitMix64). Random tensors are drawn on the host from it and then
 * uploaded, so the same seed gives the same numbers on every backend and JDK.
 */
public final class Generator {
    private long state;
    private double spareGaussian = Double.NaN;

    public Generator(long seed) { this.state = seed; }

    public long nextLong() {
        long z = (state += 0x9E3779B97F4A7C15L);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Uniform in [0, 1) with 24 random bits. */
    public float nextFloat() { return (nextLong() >>> 40) * 0x1.0p-24f; }

    /** Uniform in [0, 1) with 53 random bits. */
    public double nextDouble() { return (nextLong() >>> 11) * 0x1.0p-53; }

    /** Uniform in [0, bound). */
    public int nextInt(int bound) {
        if (bound <= 0) throw new IllegalArgumentException("nextInt: bound must be positive, got " + bound);
        return (int) Math.floorMod(nextLong() >>> 1, (long) bound);
    }

    /** Standard normal (Box–Muller, both values used). */
    public double nextGaussian() {
        if (!Double.isNaN(spareGaussian)) {
            double g = spareGaussian;
            spareGaussian = Double.NaN;
            return g;
        }
        double u1 = 1.0 - nextDouble(); // (0, 1], keeps log finite
        double u2 = nextDouble();
        double r = Math.sqrt(-2.0 * Math.log(u1));
        spareGaussian = r * Math.sin(2 * Math.PI * u2);
        return r * Math.cos(2 * Math.PI * u2);
    }

    /** The full state (two words), to save in a checkpoint and restore with {@link #setState}. */
    public long[] state() { return new long[] {state, Double.doubleToRawLongBits(spareGaussian)}; }

    /** Restores a state from {@link #state()}: the generator continues exactly where that one was. */
    public void setState(long[] words) {
        if (words.length != 2) throw new IllegalArgumentException("Generator.setState: expected 2 words, got " + words.length);
        state = words[0];
        spareGaussian = Double.longBitsToDouble(words[1]);
    }
}
