package dev.symbiont.cpu.kernels;

import java.util.Arrays;

/**
 * Scaled-dot-product attention, forward, tiled FlashAttention-style: each task takes a block of
 * {@value #BR} query rows of one head and streams the keys past it {@value #BC} at a time. Per
 * key block it forms the scores S = (q·scale)·kᵀ (+ mask, causal), and keeps an online softmax
 * per query row — the running max m and sum l — rescaling the output rows accumulated so far
 * whenever m grows (Milakov &amp; Gimelshein 2018; Dao et al. 2022, Algorithm 1). The output is
 * accumulated in place and divided by l at the end; logsumexp = m + log l is stored for the
 * backward. Nothing of size sq×sk is ever allocated: a task's scratch is a few blocks.
 *
 * <p>Causal attention (key j visible to query i iff j ≤ i + sk − sq) stops each query block at
 * its last visible key, so key blocks above the diagonal are never touched, and masks only
 * inside the blocks the diagonal crosses. A row with no visible key keeps m = −∞ and l = 0:
 * its output stays zero and its logsumexp is −∞.
 *
 * <p>Tasks are (batch·head, query block) pairs spread over the shared pool; query blocks are
 * visited in an interleaved order (0, n−1, 1, n−2, …) so that contiguous chunks of a causal
 * head get a fair mix of short and long rows.
 */
public final class FlashAttention {
    private FlashAttention() {}

    /** Query rows per block. */
    public static final int BR = 64;
    /** Keys per block. */
    public static final int BC = 64;

    /** The sizes of one attention call; query head h reads kv head h / (heads / kvHeads). */
    public record Dims(int batch, int heads, int kvHeads, int sq, int sk, int d) {
        int group() { return heads / kvHeads; }

        /** Causal: query i sees key j iff j ≤ i + shift. */
        int shift() { return sk - sq; }

        /** One past the last key query i may see (clamped to [0, sk]). */
        int keyEnd(boolean causal, int i) {
            return causal ? (int) Math.max(0, Math.min(sk, (long) i + shift() + 1)) : sk;
        }
    }

    /**
     * out (batch, heads, sq, d) and lse (batch, heads, sq), both contiguous and zero on entry.
     *
     * @param q    rows of d consecutive elements
     * @param k    as q, with kvHeads heads and sk rows; {@code v} likewise
     * @param mask null or the additive mask broadcast to (batch, heads, sq, sk)
     */
    public static void forward(TileMath tm, Dims dims, HeadRows q, HeadRows k, HeadRows v, HeadRows mask,
                               boolean causal, float scale, float[] out, float[] lse) {
        int qBlocks = (dims.sq() + BR - 1) / BR, d = dims.d();
        Parallel.forRange(dims.batch() * dims.heads() * qBlocks, 1, (from, to) -> {
            Scratch s = new Scratch(d);
            for (int item = from; item < to; item++) {
                int bh = item / qBlocks, qb = interleaved(item % qBlocks, qBlocks);
                queryBlock(tm, dims, q, k, v, mask, causal, scale, bh, qb * BR, s, out, lse);
            }
        });
    }

    /** The index'th block in the order 0, n−1, 1, n−2, …. */
    static int interleaved(int index, int n) {
        return (index & 1) == 0 ? index >> 1 : n - 1 - (index >> 1);
    }

    /** One task's blocks: the scaled queries, a transposed key block, the scores and the row statistics. */
    private static final class Scratch {
        final float[] qs, kt, s = new float[BR * BC], m = new float[BR], l = new float[BR];

        Scratch(int d) {
            qs = new float[BR * d];
            kt = new float[d * BC];
        }
    }

    private static void queryBlock(TileMath tm, Dims dims, HeadRows q, HeadRows k, HeadRows v, HeadRows mask,
                                   boolean causal, float scale, int bh, int i0, Scratch t, float[] out, float[] lse) {
        int d = dims.d(), b = bh / dims.heads(), h = bh % dims.heads(), kh = h / dims.group();
        int br = Math.min(BR, dims.sq() - i0);
        float[] s = t.s, m = t.m, l = t.l;
        for (int r = 0; r < br; r++) tm.scale(q.data(), q.row(b, h, i0 + r), scale, t.qs, r * d, d);
        Arrays.fill(m, Float.NEGATIVE_INFINITY);
        Arrays.fill(l, 0f);
        int outBase = (bh * dims.sq() + i0) * d;
        int keyEnd = dims.keyEnd(causal, i0 + br - 1); // the last row sees the most keys
        for (int j0 = 0; j0 < keyEnd; j0 += BC) {
            int bc = Math.min(BC, keyEnd - j0);
            transposeRows(k, b, kh, j0, bc, d, t.kt);
            tm.mulAdd(br, bc, d, t.qs, 0, d, 1, t.kt, 0, BC, s, 0, BC, false);
            for (int r = 0; r < br; r++) {
                int row = r * BC, i = i0 + r;
                if (mask != null) tm.addStrided(s, row, mask.data(), mask.row(b, h, i) + j0 * mask.colStride(), mask.colStride(), bc);
                int visible = causal ? Math.max(0, Math.min(bc, dims.keyEnd(true, i) - j0)) : bc;
                if (visible < bc) Arrays.fill(s, row + visible, row + bc, Float.NEGATIVE_INFINITY);
                float mNew = Math.max(m[r], tm.max(s, row, bc));
                if (mNew == Float.NEGATIVE_INFINITY) { // nothing visible yet: this block adds nothing
                    Arrays.fill(s, row, row + bc, 0f);
                    continue;
                }
                float alpha = (float) Math.exp(m[r] - mNew); // 0 when m was −∞
                float rowSum = tm.expSum(s, row, bc, mNew);
                if (alpha != 1f) {
                    tm.scale(out, outBase + r * d, alpha, out, outBase + r * d, d);
                    l[r] *= alpha;
                }
                l[r] += rowSum;
                m[r] = mNew;
            }
            // O += P · V over this key block
            int vRow = v.row(b, kh, j0);
            tm.mulAdd(br, d, bc, s, 0, BC, 1, v.data(), vRow, v.rowStride(), out, outBase, d, true);
        }
        for (int r = 0; r < br; r++) {
            int li = bh * dims.sq() + i0 + r;
            if (l[r] == 0f) {
                lse[li] = Float.NEGATIVE_INFINITY;
                continue;
            }
            tm.scale(out, outBase + r * d, 1f / l[r], out, outBase + r * d, d);
            lse[li] = m[r] + (float) Math.log(l[r]);
        }
    }

    /** kt[c·BC + j] = x(b, h, j0 + j, c): a block of rows transposed so that a product can read them as B. */
    static void transposeRows(HeadRows x, int b, int h, int j0, int rows, int d, float[] kt) {
        float[] data = x.data();
        for (int j = 0; j < rows; j++) {
            int src = x.row(b, h, j0 + j);
            for (int c = 0; c < d; c++) kt[c * BC + j] = data[src + c];
        }
    }
}
