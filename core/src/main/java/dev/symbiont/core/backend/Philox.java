package dev.symbiont.core.backend;

/**
 * Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC'11), the
 * counter-based generator of cuRAND and of PyTorch's CUDA generator, and the exact bits → float
 * conversions every backend's {@link Backend#random} must reproduce.
 *
 * <p><b>Stream.</b> A seed and a block offset name a stream of 128-bit blocks: block {@code b}
 * is Philox4x32-10 of the counter {@code (lo32(b), hi32(b), 0, 0)} under the key
 * {@code (lo32(seed), hi32(seed))}, four 32-bit words. Element {@code i} of a tensor drawn at
 * {@code offset} comes from block {@code offset + i / 4}:
 * <ul>
 *   <li>{@link RandomKind#UNIFORM}: word {@code i % 4}, as {@code (w >>> 8) · 2⁻²⁴} in [0, 1);
 *   <li>{@link RandomKind#NORMAL}: words {@code (w0, w1)} give elements 0 and 1 of the block,
 *       {@code (w2, w3)} elements 2 and 3, by Box–Muller in double:
 *       {@code u1 = (w0 + 1) · 2⁻³²} in (0, 1], {@code u2 = w1 · 2⁻³²} in [0, 1) (words unsigned),
 *       {@code r = sqrt(−2 · StrictMath.log(u1))}, {@code θ = 2π · u2},
 *       {@code z0 = (float) (r · StrictMath.cos(θ))}, {@code z1 = (float) (r · StrictMath.sin(θ))}.
 * </ul>
 * A tensor of n elements uses {@link #blocks blocks(n)} = ⌈n / 4⌉ blocks, by which its generator
 * advances. Every step is exactly reproducible: integer arithmetic, exact conversions, IEEE
 * double multiply and sqrt, and {@link StrictMath}'s fdlibm log, sin and cos, which a device
 * backend ports as they are.
 */
public final class Philox {
    static final int M0 = 0xD2511F53, M1 = 0xCD9E8D57;
    static final int W0 = 0x9E3779B9, W1 = 0xBB67AE85;
    private static final double TWO_PI = 2 * Math.PI;

    private Philox() {}

    /** Philox4x32-10 of counter {@code (c0, c1, c2, c3)} under key {@code (k0, k1)}, into {@code out[0..3]}. */
    public static void block(int c0, int c1, int c2, int c3, int k0, int k1, int[] out) {
        for (int round = 0; round < 10; round++) {
            if (round > 0) {
                k0 += W0;
                k1 += W1;
            }
            long p0 = (M0 & 0xFFFFFFFFL) * (c0 & 0xFFFFFFFFL);
            long p1 = (M1 & 0xFFFFFFFFL) * (c2 & 0xFFFFFFFFL);
            int n0 = (int) (p1 >>> 32) ^ c1 ^ k0;
            int n2 = (int) (p0 >>> 32) ^ c3 ^ k1;
            c1 = (int) p1;
            c3 = (int) p0;
            c0 = n0;
            c2 = n2;
        }
        out[0] = c0;
        out[1] = c1;
        out[2] = c2;
        out[3] = c3;
    }

    /** Block {@code b} of {@code seed}'s stream (see the class comment). */
    public static void block(long seed, long b, int[] out) {
        block((int) b, (int) (b >>> 32), 0, 0, (int) seed, (int) (seed >>> 32), out);
    }

    /** Blocks a tensor of {@code size} elements consumes: ⌈size / 4⌉. */
    public static long blocks(long size) { return (size + 3) >>> 2; }

    /** A word as a float in [0, 1): its top 24 bits times 2⁻²⁴. */
    public static float uniform(int word) { return (word >>> 8) * 0x1.0p-24f; }

    /** The Box–Muller radius of a word: sqrt(−2 ln u1) with u1 = (word + 1) · 2⁻³² in (0, 1]. */
    public static double radius(int word) {
        return Math.sqrt(0.0 - 2.0 * StrictMath.log(((word & 0xFFFFFFFFL) + 1) * 0x1.0p-32)); // 0.0 −: +0 at u1 = 1
    }

    /** The Box–Muller angle of a word: 2π · word · 2⁻³², in [0, 2π). */
    public static double angle(int word) { return TWO_PI * ((word & 0xFFFFFFFFL) * 0x1.0p-32); }

    /**
     * Writes elements {@code [from, to)} of a {@code kind} tensor drawn at block {@code offset}
     * of {@code seed}'s stream into {@code out[from, to)}. Any sub-range gives the same values
     * as the whole, so a backend may split the work anywhere.
     */
    public static void fill(RandomKind kind, float[] out, int from, int to, long seed, long offset) {
        int[] w = new int[4];
        int i = from;
        while (i < to) {
            int lane0 = i & ~3;
            block(seed, offset + (i >>> 2), w);
            int end = Math.min(to, lane0 + 4);
            if (kind == RandomKind.UNIFORM) {
                for (; i < end; i++) out[i] = uniform(w[i - lane0]);
            } else {
                for (; i < end; i++) {
                    int lane = i - lane0, pair = lane & ~1;
                    double r = radius(w[pair]), theta = angle(w[pair + 1]);
                    out[i] = (float) (r * ((lane & 1) == 0 ? StrictMath.cos(theta) : StrictMath.sin(theta)));
                }
            }
        }
    }
}
