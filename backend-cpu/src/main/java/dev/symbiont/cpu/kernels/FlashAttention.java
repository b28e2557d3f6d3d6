package dev.symbiont.cpu.kernels;

import java.util.Arrays;

/**
 * Scaled-dot-product attention, forward, tiled FlashAttention-style: each task takes a block of
 * {@value #BR} query rows of one head and streams the keys past it {@value #KEYS} at a time. Per
 * key block it forms the scores S = (q·scale)·kᵀ (+ mask, causal), and keeps an online softmax
 * per query row — the running max m and sum l — rescaling the output rows accumulated so far
 * whenever m grows (Milakov &amp; Gimelshein 2018; Dao et al. 2022, Algorithm 1). The output is
 * accumulated in the task's scratch and divided by l into out at the end; logsumexp = m + log l
 * is stored for the backward. Nothing of size sq×sk is ever allocated: a task's scratch is a few
 * blocks, the keys are packed once per call into the panels the score product reads as B (k's
 * size), the block's scaled queries into its A panels (both run on the GEMM's micro-kernel, see
 * {@link TileMath#mulPacked}), and values whose rows are not back to back (a head split) are
 * copied so once per call when enough query blocks reread them.
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
    /** Keys per block in the backward, and per transposed block of the backward's kᵀ and vᵀ. */
    public static final int BC = 64;
    /**
     * Keys per block in the forward: 128 halves the online softmax's per-row work (a max and a
     * sum across lanes, O's rows rescaled) per key, while the 64 × 128 scores still fit L1.
     */
    static final int KEYS = 128;

    /**
     * Causal blocks the diagonal crosses are computed in two row halves: the first {@value #TOP_ROWS}
     * rows see fewer of the block's keys, so their scores, P·V (and in the backward dP, dV, dK
     * and dQ) stop at the first multiple of {@value #TOP_COLUMNS} past their last visible key
     * instead of running over keys that are masked anyway. The terms left out are exact zeros
     * (exp(−∞) = 0) at the ends of their sums, so the results are the same bits. Measured on Zen 4
     * in one JVM (causal, d 64, 9 alternated rounds): the GPT block's attention (b 8, 4 heads, seq 256)
     * forward −4.4% (won 8), forward + backward −8.2% (won 6); b 1, 8 heads at seq 512 and 4096 a tie.
     */
    static final int TOP_ROWS = BR / 2;
    /** The column granularity of the split: two vectors at 16 lanes, so exp-sums keep their pairing. */
    static final int TOP_COLUMNS = 32;
    /** False only in tests, to compare the split blocks with whole ones. */
    static volatile boolean splitDiagonal = true;

    /**
     * How many of the keys [j0, j0 + bc) a block of br query rows from i0 computes for its first
     * {@link #TOP_ROWS} rows: bc, unless causality splits the block, then the first multiple of
     * {@link #TOP_COLUMNS} past those rows' last visible key.
     */
    static int topKeys(Dims dims, boolean causal, int i0, int br, int j0, int bc) {
        if (!causal || !splitDiagonal || br <= TOP_ROWS) return bc;
        int visible = Math.max(0, dims.keyEnd(true, i0 + TOP_ROWS - 1) - j0);
        return Math.min(bc, (visible + TOP_COLUMNS - 1) / TOP_COLUMNS * TOP_COLUMNS);
    }

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
     * Whether rows read this many times are worth copying into contiguous order first: the copy is
     * one pass, and each read of a strided block (see {@link HeadRows#packed}) runs from L2.
     */
    static boolean rereadEnough(int reads) {
        return reads >= 3;
    }

    /**
     * out (batch, heads, sq, d), every row written, and lse (batch, heads, sq), contiguous.
     *
     * @param q    rows of d consecutive elements
     * @param out  rows of d consecutive elements, any row and head strides: a (batch, sq, heads, d)
     *             buffer seen as (batch, heads, sq, d) makes merging the heads afterwards free
     * @param k    as q, with kvHeads heads and sk rows; {@code v} likewise
     * @param mask null or the additive mask broadcast to (batch, heads, sq, sk)
     * @param scratch where the call's transposed keys and packed values come from
     */
    public static void forward(TileMath tm, Dims dims, HeadRows q, HeadRows k, HeadRows v, HeadRows mask,
                               boolean causal, float scale, HeadRows out, float[] lse, FloatScratch scratch) {
        int qBlocks = (dims.sq() + BR - 1) / BR, d = dims.d();
        KeyPanels kt = KeyPanels.of(tm, dims, k, scratch);
        HeadRows vRows = rereadEnough(qBlocks) ? v.packed(dims.batch(), dims.kvHeads(), dims.sk(), d, scratch) : v;
        Parallel.forRange(dims.batch() * dims.heads() * qBlocks, 1, (from, to) -> {
            Scratch s = new Scratch(d);
            for (int item = from; item < to; item++) {
                int bh = item / qBlocks, qb = interleaved(item % qBlocks, qBlocks);
                queryBlock(tm, dims, q, kt, vRows, mask, causal, scale, bh, qb * BR, s, out, lse);
            }
        });
    }

    /**
     * Every key block of every kv head packed once, up front, as the B of the score product (kᵀ in
     * {@link TileMath#packB} panels): each query block of a head reads them all, so packing per query
     * block would repeat the copy sq / BR times. Heads lie ⌈sk / panelColumns⌉·panelColumns keys apart,
     * so every block starts at a whole panel; exactly k's size up to that padding.
     */
    record KeyPanels(float[] data, int keysPerHead, int d) {
        static KeyPanels of(TileMath tm, Dims dims, HeadRows k, FloatScratch scratch) {
            int kBlocks = (dims.sk() + KEYS - 1) / KEYS, d = dims.d();
            int keysPerHead = roundUp(dims.sk(), tm.panelColumns());
            KeyPanels kt = new KeyPanels(scratch.empty(dims.batch() * dims.kvHeads() * keysPerHead * d), keysPerHead, d); // every panel written
            Parallel.forRange(dims.batch() * dims.kvHeads() * kBlocks, 1, (from, to) -> {
                for (int item = from; item < to; item++) {
                    int bkh = item / kBlocks, j0 = (item % kBlocks) * KEYS, bc = Math.min(KEYS, dims.sk() - j0);
                    int b = bkh / dims.kvHeads(), kh = bkh % dims.kvHeads();
                    tm.packB(k.data(), k.row(b, kh, j0), 1, k.rowStride(), d, bc, kt.data, kt.block(bkh, j0));
                }
            });
            return kt;
        }

        /** Where the panels of key block j0 of (batch·kvHeads) head bkh start. */
        int block(int bkh, int j0) {
            return (bkh * keysPerHead + j0) * d;
        }
    }

    /** n rounded up to a multiple of m. */
    static int roundUp(int n, int m) {
        return (n + m - 1) / m * m;
    }

    /** The index'th block in the order 0, n−1, 1, n−2, …. */
    static int interleaved(int index, int n) {
        return (index & 1) == 0 ? index >> 1 : n - 1 - (index >> 1);
    }

    /** One task's blocks: the scaled queries (A panels), the scores, the row statistics and the output rows accumulated. */
    private static final class Scratch {
        final float[] qs, o, s = new float[BR * KEYS], m = new float[BR], l = new float[BR];

        Scratch(int d) {
            qs = new float[BR * d];
            o = new float[BR * d];
        }
    }

    private static void queryBlock(TileMath tm, Dims dims, HeadRows q, KeyPanels kt, HeadRows v, HeadRows mask,
                                   boolean causal, float scale, int bh, int i0, Scratch t, HeadRows out, float[] lse) {
        int d = dims.d(), b = bh / dims.heads(), h = bh % dims.heads(), kh = h / dims.group();
        int br = Math.min(BR, dims.sq() - i0);
        float[] s = t.s, m = t.m, l = t.l;
        // the block's queries as the score product's A, scaled (elementwise, so packing first changes nothing)
        tm.packA(q.data(), q.row(b, h, i0), q.rowStride(), 1, br, d, t.qs, 0);
        tm.scale(t.qs, 0, scale, t.qs, 0, roundUp(br, tm.panelRows()) * d);
        Arrays.fill(m, Float.NEGATIVE_INFINITY);
        Arrays.fill(l, 0f);
        // O accumulates in the task's own rows, not out's: out's may lie heads·d apart (see HeadRows.packed)
        float[] o = t.o;
        Arrays.fill(o, 0, br * d, 0f);
        int keyEnd = dims.keyEnd(causal, i0 + br - 1); // the last row sees the most keys
        for (int j0 = 0; j0 < keyEnd; j0 += KEYS) {
            int bc = Math.min(KEYS, keyEnd - j0);
            // where the diagonal crosses this block, rows [0, top) see only its first bcTop keys
            int bcTop = topKeys(dims, causal, i0, br, j0, bc), top = bcTop < bc ? TOP_ROWS : 0;
            // S over whole panels: padded rows and columns land inside s (BR × KEYS) and are never read
            int kBlock = kt.block(b * dims.kvHeads() + kh, j0);
            if (bcTop == bc) {
                tm.mulPacked(br, bc, d, t.qs, 0, kt.data(), kBlock, s, 0, KEYS);
            } else {
                if (bcTop > 0) tm.mulPacked(top, bcTop, d, t.qs, 0, kt.data(), kBlock, s, 0, KEYS);
                tm.mulPacked(br - top, bc, d, t.qs, top * d, kt.data(), kBlock, s, top * KEYS, KEYS);
            }
            for (int r = 0; r < br; r++) {
                int row = r * KEYS, i = i0 + r, rowBc = r < top ? bcTop : bc;
                if (rowBc == 0) continue; // nothing of this block is visible to the row
                if (mask != null) tm.addStrided(s, row, mask.data(), mask.row(b, h, i) + j0 * mask.colStride(), mask.colStride(), rowBc);
                int visible = causal ? Math.max(0, Math.min(rowBc, dims.keyEnd(true, i) - j0)) : rowBc;
                if (visible < rowBc) Arrays.fill(s, row + visible, row + rowBc, Float.NEGATIVE_INFINITY);
                float mNew = Math.max(m[r], tm.max(s, row, rowBc));
                if (mNew == Float.NEGATIVE_INFINITY) { // nothing visible yet: this block adds nothing
                    Arrays.fill(s, row, row + rowBc, 0f);
                    continue;
                }
                float alpha = (float) Math.exp(m[r] - mNew); // 0 when m was −∞
                float rowSum = tm.expSum(s, row, rowBc, mNew);
                if (alpha != 1f) {
                    tm.scale(o, r * d, alpha, o, r * d, d);
                    l[r] *= alpha;
                }
                l[r] += rowSum;
                m[r] = mNew;
            }
            // O += P · V over this key block (the first rows over their bcTop keys)
            int vRow = v.row(b, kh, j0);
            if (bcTop == bc) {
                tm.mulAdd(br, d, bc, s, 0, KEYS, 1, v.data(), vRow, v.rowStride(), o, 0, d, true);
            } else {
                if (bcTop > 0) tm.mulAdd(top, d, bcTop, s, 0, KEYS, 1, v.data(), vRow, v.rowStride(), o, 0, d, true);
                tm.mulAdd(br - top, d, bc, s, top * KEYS, KEYS, 1, v.data(), vRow, v.rowStride(), o, top * d, d, true);
            }
        }
        for (int r = 0; r < br; r++) {
            int li = bh * dims.sq() + i0 + r, at = out.row(b, h, i0 + r);
            if (l[r] == 0f) { // no visible key: a zero row
                Arrays.fill(out.data(), at, at + d, 0f);
                lse[li] = Float.NEGATIVE_INFINITY;
                continue;
            }
            tm.scale(o, r * d, 1f / l[r], out.data(), at, d);
            lse[li] = m[r] + (float) Math.log(l[r]);
        }
    }
}
