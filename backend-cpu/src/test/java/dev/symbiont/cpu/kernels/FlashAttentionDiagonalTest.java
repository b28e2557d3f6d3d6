package dev.symbiont.cpu.kernels;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Causal blocks the diagonal crosses, computed in two row halves ({@link FlashAttention#TOP_ROWS}),
 * give the bits of the whole blocks — output, logsumexp, dq, dk and dv — on the vector and
 * scalar tiles, for lengths on and off the block sizes, more keys than queries (a cache) and
 * more queries than keys, grouped query heads, and a mask.
 */
class FlashAttentionDiagonalTest {
    @AfterEach
    void restore() { FlashAttention.splitDiagonal = true; }

    @Test
    void splitDiagonalBlocksGiveTheBitsOfWholeBlocks() {
        int[][] shapes = { // batch, heads, kvHeads, sq, sk, d
                {2, 2, 2, 256, 256, 64}, {1, 2, 2, 200, 200, 64}, {1, 2, 1, 77, 141, 32},
                {1, 3, 3, 130, 130, 16}, {1, 2, 2, 150, 37, 16}, {1, 4, 2, 513, 513, 8}};
        for (TileMath tm : new TileMath[] {VectorTileMath.INSTANCE, ScalarTileMath.INSTANCE}) {
            for (int[] s : shapes) {
                for (boolean masked : new boolean[] {false, true}) {
                    String what = java.util.Arrays.toString(s) + (masked ? " masked" : "") + " on " + tm.getClass().getSimpleName();
                    FlashAttention.splitDiagonal = true;
                    float[][] split = run(tm, s, masked);
                    FlashAttention.splitDiagonal = false;
                    float[][] whole = run(tm, s, masked);
                    String[] parts = {"output", "logsumexp", "dq", "dk", "dv"};
                    for (int p = 0; p < parts.length; p++) assertArrayEquals(whole[p], split[p], what + ": " + parts[p]);
                    assertFalse(java.util.Arrays.equals(whole[2], new float[whole[2].length]), what + ": dq is not all zero");
                }
            }
        }
    }

    /** out, lse, dq, dk, dv of causal attention on inputs drawn from the shape. */
    private static float[][] run(TileMath tm, int[] s, boolean masked) {
        int batch = s[0], heads = s[1], kvHeads = s[2], sq = s[3], sk = s[4], d = s[5];
        Random rnd = new Random(11);
        float[] q = random(rnd, batch * heads * sq * d), k = random(rnd, batch * kvHeads * sk * d), v = random(rnd, batch * kvHeads * sk * d);
        float[] gradOut = random(rnd, batch * heads * sq * d), mask = masked ? random(rnd, sq * sk) : null;
        FlashAttention.Dims dims = new FlashAttention.Dims(batch, heads, kvHeads, sq, sk, d);
        HeadRows maskRows = mask == null ? null : new HeadRows(mask, 0, 0, 0, sk, 1); // (sq, sk) broadcast over batch and heads
        float[] out = new float[q.length], lse = new float[batch * heads * sq];
        float scale = (float) (1 / Math.sqrt(d));
        FlashAttention.forward(tm, dims, rows(q, heads, sq, d), rows(k, kvHeads, sk, d), rows(v, kvHeads, sk, d), maskRows, true, scale,
                rows(out, heads, sq, d), lse, FloatScratch.FRESH);
        float[] dq = new float[q.length], dk = new float[k.length], dv = new float[v.length];
        FlashAttentionBackward.backward(tm, dims, rows(q, heads, sq, d), rows(k, kvHeads, sk, d), rows(v, kvHeads, sk, d), maskRows,
                true, scale, rows(out, heads, sq, d), rows(gradOut, heads, sq, d), lse,
                rows(dq, heads, sq, d), rows(dk, kvHeads, sk, d), rows(dv, kvHeads, sk, d), FloatScratch.FRESH);
        return new float[][] {out, lse, dq, dk, dv};
    }

    private static HeadRows rows(float[] data, int heads, int n, int d) { return HeadRows.contiguous(data, heads, n, d); }

    private static float[] random(Random rnd, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) rnd.nextGaussian();
        return x;
    }
}
