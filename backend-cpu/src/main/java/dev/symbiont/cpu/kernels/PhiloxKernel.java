package dev.symbiont.cpu.kernels;

import dev.symbiont.core.backend.Philox;
import dev.symbiont.core.backend.RandomKind;

/**
 * The CPU backend's Philox4x32-10: its own round loop (round keys computed once per call,
 * state in locals, four outputs written per block), run over block-aligned chunks in
 * parallel. Only the bits → float conversions are {@link Philox}'s, so that they stay one code
 * path; the conformance kit's {@code Random} group checks the result against the reference's
 * {@link Philox#fill} bit for bit.
 */
public final class PhiloxKernel {
    private PhiloxKernel() {}

    /** Blocks (4 values each) below which a draw stays on one thread. */
    static final int GRAIN_BLOCKS = 4096;

    private static final int M0 = 0xD2511F53, M1 = 0xCD9E8D57;
    private static final int W0 = 0x9E3779B9, W1 = 0xBB67AE85;

    /** Elements {@code [0, size)} of a draw at block {@code offset} of {@code seed}'s stream (see {@link Philox}). */
    public static void fill(RandomKind kind, float[] out, int size, long seed, long offset) {
        int[] keys = new int[20];
        for (int r = 0; r < 10; r++) {
            keys[2 * r] = (int) seed + r * W0;
            keys[2 * r + 1] = (int) (seed >>> 32) + r * W1;
        }
        Parallel.forRange((int) Philox.blocks(size), GRAIN_BLOCKS,
                (from, to) -> blocks(kind, out, size, keys, offset, from, to));
    }

    /** Blocks {@code [from, to)} of the draw, writing their (up to) four elements each. */
    private static void blocks(RandomKind kind, float[] out, int size, int[] keys, long offset, int from, int to) {
        for (int blk = from; blk < to; blk++) {
            long b = offset + blk;
            int c0 = (int) b, c1 = (int) (b >>> 32), c2 = 0, c3 = 0;
            for (int r = 0; r < 20; r += 2) {
                long p0 = (M0 & 0xFFFFFFFFL) * (c0 & 0xFFFFFFFFL);
                long p1 = (M1 & 0xFFFFFFFFL) * (c2 & 0xFFFFFFFFL);
                c0 = (int) (p1 >>> 32) ^ c1 ^ keys[r];
                c2 = (int) (p0 >>> 32) ^ c3 ^ keys[r + 1];
                c1 = (int) p1;
                c3 = (int) p0;
            }
            int i = 4 * blk;
            if (i + 4 <= size) {
                write(kind, out, i, c0, c1, c2, c3);
            } else {                                  // the last, partial block
                float[] four = new float[4];
                write(kind, four, 0, c0, c1, c2, c3);
                System.arraycopy(four, 0, out, i, size - i);
            }
        }
    }

    private static void write(RandomKind kind, float[] out, int i, int w0, int w1, int w2, int w3) {
        if (kind == RandomKind.UNIFORM) {
            out[i] = Philox.uniform(w0);
            out[i + 1] = Philox.uniform(w1);
            out[i + 2] = Philox.uniform(w2);
            out[i + 3] = Philox.uniform(w3);
        } else {
            double r0 = Philox.radius(w0), t0 = Philox.angle(w1), r1 = Philox.radius(w2), t1 = Philox.angle(w3);
            out[i] = (float) (r0 * StrictMath.cos(t0));
            out[i + 1] = (float) (r0 * StrictMath.sin(t0));
            out[i + 2] = (float) (r1 * StrictMath.cos(t1));
            out[i + 3] = (float) (r1 * StrictMath.sin(t1));
        }
    }
}
