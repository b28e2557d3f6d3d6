package dev.symbiont.cpu.kernels;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The attention kernels write every scratch array they take as "empty" before reading it: handed
 * arrays full of NaN (as a recycled pool array may hold anything), they give the bits they give
 * on fresh zeroed arrays — on head-split rows, where they pack q, dO and v, with one dQ per kv
 * head and with partial dQ sums per key-block split (a single kv head).
 */
class FlashAttentionScratchTest {
    /** Hands out NaN-filled arrays for {@link #empty}, zeros for {@link #zeros}, and counts both. */
    private static final class Garbage implements FloatScratch {
        final AtomicInteger empties = new AtomicInteger(), zeroed = new AtomicInteger();

        @Override
        public float[] empty(int n) {
            empties.incrementAndGet();
            float[] a = new float[n];
            Arrays.fill(a, Float.NaN);
            return a;
        }

        @Override
        public float[] zeros(int n) {
            zeroed.incrementAndGet();
            return new float[n];
        }
    }

    @Test
    void recycledScratchGivesTheBitsOfFreshArrays() {
        int[][] shapes = { // batch, heads, kvHeads, seq, d
                {2, 4, 4, 192, 16}, {1, 2, 1, 200, 32}, {1, 3, 3, 77, 8}};
        for (TileMath tm : new TileMath[] {VectorTileMath.INSTANCE, ScalarTileMath.INSTANCE}) {
            for (int[] s : shapes) {
                for (boolean causal : new boolean[] {true, false}) {
                    String what = Arrays.toString(s) + (causal ? " causal" : "") + " on " + tm.getClass().getSimpleName();
                    Garbage garbage = new Garbage();
                    float[][] fresh = run(tm, s, causal, FloatScratch.FRESH), recycled = run(tm, s, causal, garbage);
                    String[] parts = {"output", "logsumexp", "dq", "dk", "dv"};
                    for (int p = 0; p < parts.length; p++) assertArrayEquals(fresh[p], recycled[p], what + ": " + parts[p]);
                    assertTrue(garbage.empties.get() >= 2, what + ": the kernels took their scratch from it");
                }
            }
        }
    }

    /** out, lse, dq, dk, dv with q, k, v, dO, dq, dk, dv all head splits of (batch, seq, heads·d) buffers. */
    private static float[][] run(TileMath tm, int[] s, boolean causal, FloatScratch scratch) {
        int batch = s[0], heads = s[1], kvHeads = s[2], seq = s[3], d = s[4];
        Random rnd = new Random(5);
        float[] q = random(rnd, batch * seq * heads * d), k = random(rnd, batch * seq * kvHeads * d), v = random(rnd, k.length);
        float[] gradOut = random(rnd, q.length);
        FlashAttention.Dims dims = new FlashAttention.Dims(batch, heads, kvHeads, seq, seq, d);
        float[] out = new float[q.length], lse = new float[batch * heads * seq];
        float scale = (float) (1 / Math.sqrt(d));
        FlashAttention.forward(tm, dims, split(q, heads, seq, d), split(k, kvHeads, seq, d), split(v, kvHeads, seq, d), null, causal,
                scale, split(out, heads, seq, d), lse, scratch);
        float[] dq = new float[q.length], dk = new float[k.length], dv = new float[v.length];
        FlashAttentionBackward.backward(tm, dims, split(q, heads, seq, d), split(k, kvHeads, seq, d), split(v, kvHeads, seq, d), null,
                causal, scale, split(out, heads, seq, d), split(gradOut, heads, seq, d), lse,
                split(dq, heads, seq, d), split(dk, kvHeads, seq, d), split(dv, kvHeads, seq, d), scratch);
        return new float[][] {out, lse, dq, dk, dv};
    }

    /** (batch, seq, heads·d) seen as (batch, heads, seq, d). */
    private static HeadRows split(float[] data, int heads, int seq, int d) {
        return new HeadRows(data, 0, seq * heads * d, d, heads * d, 1);
    }

    private static float[] random(Random rnd, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) rnd.nextGaussian();
        return x;
    }
}
