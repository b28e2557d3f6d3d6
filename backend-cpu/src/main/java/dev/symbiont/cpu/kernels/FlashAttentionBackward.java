package dev.symbiont.cpu.kernels;

import dev.symbiont.cpu.CpuThreads;

import java.util.Arrays;

import static dev.symbiont.cpu.kernels.FlashAttention.BC;

/**
 * Scaled-dot-product attention, backward, FlashAttention-2 style (Dao 2023, Algorithm 2): the
 * probabilities are never stored, they are recomputed block by block from q, k and the forward's
 * logsumexp. First D = rowsum(dO ∘ O) per query row; then each task owns a block of keys of one
 * kv head and, for every query block of every query head that reads it,
 *
 * <pre>
 *   P  = exp(S − lse)            S = (q·scale)·kᵀ + mask, causal
 *   dV += Pᵀ·dO
 *   dP = dO·vᵀ
 *   dS = P ∘ (dP − D)
 *   dK += dSᵀ·(q·scale)
 *   dQ += dS·k                   (times scale once at the end)
 * </pre>
 *
 * dK and dV of the block are summed over the grouped query heads in the task's own buffers and
 * stored once, so no two tasks write the same key rows. dQ rows receive a term from every key
 * block: when there are enough kv heads for the pool, one task takes all key blocks of a kv head
 * and adds into dQ directly; otherwise a kv head's key blocks are dealt round-robin to a few
 * tasks (which also balances causal work), each with its own partial dQ, summed at the end.
 * No buffer of size sq×sk exists at any point.
 */
public final class FlashAttentionBackward {
    private FlashAttentionBackward() {}

    /**
     * Query rows per step against one key block: twice the forward's {@link FlashAttention#BR}, so
     * dV += Pᵀ·dO and dK += dSᵀ·q run 128 deep and load and store their accumulators half as
     * often. Same sums in the same order as 64-row steps (each accumulation over queries continues
     * where the last step stopped), so the same bits. Measured on Zen 4 in one JVM against 64 (causal,
     * b 1, 8 heads, d 64, forward + backward, 9 alternated rounds): −2.6% at seq 4096 (won 8), −0.9% at
     * 2048 (6), −4.5% at 512 (8), a tie at 1024; 256 rows was no better.
     */
    static final int ROWS = 2 * FlashAttention.BR;

    /**
     * dq (batch, heads, sq, d), zero on entry; dk and dv (batch, kvHeads, sk, d), every row written.
     * All three are rows of d consecutive elements with any row and head strides, so each can be
     * written in the layout of its input's storage (a head of a (batch, seq, heads·d) projection).
     *
     * @param out     the forward's output; {@code gradOut} its gradient (rows of d consecutive elements)
     * @param lse     the forward's logsumexp, contiguous (batch, heads, sq)
     * @param scratch where the call's packed rows, row dots and dQ sums come from
     */
    public static void backward(TileMath tm, FlashAttention.Dims dims, HeadRows q, HeadRows k, HeadRows v, HeadRows mask,
                                boolean causal, float scale, HeadRows out, HeadRows gradOut, float[] lse,
                                HeadRows dq, HeadRows dk, HeadRows dv, FloatScratch scratch) {
        int d = dims.d(), sq = dims.sq(), heads = dims.heads();
        float[] rowDot = scratch.empty(dims.batch() * heads * sq); // every row's dot written
        Parallel.forRange(rowDot.length, Parallel.rowGrain(d), (from, to) -> {
            for (int row = from; row < to; row++) {
                int bh = row / sq, i = row % sq, b = bh / heads, h = bh % heads;
                rowDot[row] = tm.dot(gradOut.data(), gradOut.row(b, h, i), out.data(), out.row(b, h, i), d);
            }
        });

        int kvCount = dims.batch() * dims.kvHeads(), keyBlocks = (dims.sk() + BC - 1) / BC;
        int wanted = (2 * CpuThreads.parallelism() + kvCount - 1) / Math.max(kvCount, 1);
        int splits = Math.max(1, Math.min(wanted, keyBlocks));
        int groupRows = dims.group() * sq;
        float[][] partial = splits > 1 ? new float[kvCount * splits][] : null;
        // every key block rereads q and dO and adds into dQ: all three in rows back to back (see HeadRows.packed)
        boolean pack = FlashAttention.rereadEnough(keyBlocks);
        HeadRows qRows = pack ? q.packed(dims.batch(), heads, sq, d, scratch) : q;
        HeadRows dO = pack ? gradOut.packed(dims.batch(), heads, sq, d, scratch) : gradOut;
        HeadRows dqRows = partial != null || dq.isPacked(heads, sq, d) ? dq
                : HeadRows.contiguous(scratch.zeros(dims.batch() * heads * sq * d), heads, sq, d);
        // the A of the score and dP products, in panels once per call: q·scale and dO
        QueryPanels qs = QueryPanels.of(tm, dims, qRows, scale, scratch), dOs = QueryPanels.of(tm, dims, dO, 1f, scratch);
        Parallel.forRange(kvCount * splits, 1, (from, to) -> {
            Scratch s = new Scratch(d);
            for (int item = from; item < to; item++) {
                int kv = item / splits, split = item % splits;
                // dQ rows of the kv head's query heads g = 0 .. group − 1: dqRows, or this task's partial (group, sq, d)
                HeadRows target = dqRows;
                int tb = kv / dims.kvHeads(), th = kv % dims.kvHeads() * dims.group();
                if (partial != null) {
                    target = HeadRows.contiguous(partial[item] = scratch.zeros(groupRows * d), dims.group(), sq, d);
                    tb = th = 0;
                }
                for (int kb = split; kb < keyBlocks; kb += splits) {
                    keyBlock(tm, dims, qRows, qs, k, v, mask, causal, scale, dO, dOs, lse, rowDot, kv, kb * BC, s, target, tb, th, dk, dv);
                }
            }
        });

        // dQ = scale · Σ over splits of the partial sums (or scale · dqRows)
        float[] dqData = dq.data();
        Parallel.forRange(kvCount * groupRows, Parallel.rowGrain(d), (from, to) -> {
            for (int row = from; row < to; row++) {
                int kv = row / groupRows, local = row % groupRows;
                int b = kv / dims.kvHeads(), h = kv % dims.kvHeads() * dims.group() + local / sq, i = local % sq;
                int base = dq.row(b, h, i);
                if (partial != null) {
                    for (int sp = 0; sp < splits; sp++) {
                        float[] p = partial[kv * splits + sp];
                        for (int c = 0; c < d; c++) dqData[base + c] += p[local * d + c];
                    }
                }
                tm.scale(dqRows.data(), dqRows.row(b, h, i), scale, dqData, base, d);
            }
        });
    }

    /**
     * Every head's rows (sq × d) packed as A panels, times {@code factor}: the score product's q·scale and
     * the dP product's dO, which every key block rereads. Heads lie ⌈sq / panelRows⌉·panelRows rows apart.
     */
    record QueryPanels(float[] data, int rowsPerHead, int d) {
        static QueryPanels of(TileMath tm, FlashAttention.Dims dims, HeadRows x, float factor, FloatScratch scratch) {
            int rowsPerHead = FlashAttention.roundUp(dims.sq(), tm.panelRows()), d = dims.d(), heads = dims.heads();
            QueryPanels panels = new QueryPanels(scratch.empty(dims.batch() * heads * rowsPerHead * d), rowsPerHead, d); // every panel written
            Parallel.forRange(dims.batch() * heads, 1, (from, to) -> {
                for (int bh = from; bh < to; bh++) {
                    int at = panels.row(bh, 0);
                    tm.packA(x.data(), x.row(bh / heads, bh % heads, 0), x.rowStride(), 1, dims.sq(), d, panels.data, at);
                    if (factor != 1f) tm.scale(panels.data, at, factor, panels.data, at, rowsPerHead * d);
                }
            });
            return panels;
        }

        /** Where the panel holding row i (a multiple of panelRows) of (batch·heads) head bh starts. */
        int row(int bh, int i) {
            return (bh * rowsPerHead + i) * d;
        }
    }

    /**
     * out (br × bc, row stride BC) = A·B from panels, A's rows from {@code aOff}, rows [0, below) only
     * over B's first bcTop columns: the rows above the diagonal's crossing. Whole panels are written:
     * br and bc rounded up stay inside out (ROWS × BC).
     */
    private static void rowsTimes(TileMath tm, int below, int bcTop, int br, int bc, int d, float[] ap, int aOff,
                                  float[] bp, float[] out) {
        if (below > 0 && bcTop > 0) tm.mulPacked(below, bcTop, d, ap, aOff, bp, 0, out, 0, BC);
        tm.mulPacked(br - below, bc, d, ap, aOff + below * d, bp, 0, out, below * BC, BC);
    }

    /** One task's blocks: kᵀ and vᵀ are B panels of the score and dP products. */
    private static final class Scratch {
        final float[] qs, kt, kRows, vt, dkAcc, dvAcc, p = new float[ROWS * BC], dp = new float[ROWS * BC];

        Scratch(int d) {
            qs = new float[ROWS * d];
            kRows = new float[BC * d];
            kt = new float[d * BC];
            vt = new float[d * BC];
            dkAcc = new float[BC * d];
            dvAcc = new float[BC * d];
        }
    }

    /** Keys [j0, j0 + BC) of kv head {@code kv} (= b·kvHeads + kh) against every query that sees them. */
    private static void keyBlock(TileMath tm, FlashAttention.Dims dims, HeadRows q, QueryPanels qs, HeadRows k, HeadRows v,
                                 HeadRows mask, boolean causal, float scale, HeadRows gradOut, QueryPanels dOs,
                                 float[] lse, float[] rowDot,
                                 int kv, int j0, Scratch t, HeadRows dq, int dqBatch, int dqHead,
                                 HeadRows dk, HeadRows dv) {
        int d = dims.d(), sq = dims.sq(), b = kv / dims.kvHeads(), kh = kv % dims.kvHeads();
        int bc = Math.min(BC, dims.sk() - j0);
        float[] p = t.p, dp = t.dp;
        tm.packB(k.data(), k.row(b, kh, j0), 1, k.rowStride(), d, bc, t.kt, 0);
        for (int r = 0; r < bc; r++) System.arraycopy(k.data(), k.row(b, kh, j0 + r), t.kRows, r * d, d);
        tm.packB(v.data(), v.row(b, kh, j0), 1, v.rowStride(), d, bc, t.vt, 0);
        Arrays.fill(t.dkAcc, 0, bc * d, 0f);
        Arrays.fill(t.dvAcc, 0, bc * d, 0f);
        // earlier queries see none of these keys; the steps start at a whole panel of qs and dOs
        int firstQuery = causal ? Math.max(0, j0 - dims.shift()) / tm.panelRows() * tm.panelRows() : 0;
        for (int g = 0; g < dims.group(); g++) {
            int h = kh * dims.group() + g, bh = b * dims.heads() + h;
            for (int i0 = firstQuery; i0 < sq; i0 += ROWS) {
                int br = Math.min(ROWS, sq - i0);
                // where the diagonal crosses the step, rows [0, below) see only the block's first bcTop keys
                int bcTop = FlashAttention.topKeys(dims, causal, i0, br, j0, bc), below = bcTop < bc ? FlashAttention.TOP_ROWS : 0;
                for (int r = 0; r < br; r++) tm.scale(q.data(), q.row(b, h, i0 + r), scale, t.qs, r * d, d);
                rowsTimes(tm, below, bcTop, br, bc, d, qs.data(), qs.row(bh, i0), t.kt, p);
                for (int r = 0; r < br; r++) {
                    int row = r * BC, i = i0 + r, rowBc = r < below ? bcTop : bc;
                    float rowLse = lse[bh * sq + i];
                    if (rowLse == Float.NEGATIVE_INFINITY) { // a row with no visible key: no gradient
                        Arrays.fill(p, row, row + rowBc, 0f);
                        continue;
                    }
                    if (mask != null) tm.addStrided(p, row, mask.data(), mask.row(b, h, i) + j0 * mask.colStride(), mask.colStride(), rowBc);
                    int visible = causal ? Math.max(0, Math.min(rowBc, dims.keyEnd(true, i) - j0)) : rowBc;
                    if (visible < rowBc) Arrays.fill(p, row + visible, row + rowBc, Float.NEGATIVE_INFINITY);
                    tm.exp(p, row, rowBc, rowLse);
                }
                int doRow = gradOut.row(b, h, i0), doStride = gradOut.rowStride();
                rowsTimes(tm, below, bcTop, br, bc, d, dOs.data(), dOs.row(bh, i0), t.vt, dp);
                // dV += Pᵀ·dO: keys [bcTop, bc) from rows [below, br) only (the rows above see none of them)
                tm.mulAdd(bcTop, d, br, p, 0, 1, BC, gradOut.data(), doRow, doStride, t.dvAcc, 0, d, true);
                if (bcTop < bc) tm.mulAdd(bc - bcTop, d, br - below, p, below * BC + bcTop, 1, BC,
                        gradOut.data(), doRow + below * doStride, doStride, t.dvAcc, bcTop * d, d, true);
                for (int r = 0; r < br; r++) tm.softmaxGrad(p, dp, r * BC, r < below ? bcTop : bc, rowDot[bh * sq + i0 + r]);
                tm.mulAdd(bcTop, d, br, dp, 0, 1, BC, t.qs, 0, d, t.dkAcc, 0, d, true);
                if (bcTop < bc) tm.mulAdd(bc - bcTop, d, br - below, dp, below * BC + bcTop, 1, BC,
                        t.qs, below * d, d, t.dkAcc, bcTop * d, d, true);
                int dqRow = dq.row(dqBatch, dqHead + g, i0);
                if (below > 0 && bcTop > 0) tm.mulAdd(below, d, bcTop, dp, 0, BC, 1, t.kRows, 0, d, dq.data(), dqRow, dq.rowStride(), true);
                tm.mulAdd(br - below, d, bc, dp, below * BC, BC, 1, t.kRows, 0, d,
                        dq.data(), dqRow + below * dq.rowStride(), dq.rowStride(), true);
            }
        }
        for (int r = 0; r < bc; r++) {
            System.arraycopy(t.dkAcc, r * d, dk.data(), dk.row(b, kh, j0 + r), d);
            System.arraycopy(t.dvAcc, r * d, dv.data(), dv.row(b, kh, j0 + r), d);
        }
    }
}
