package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.gemm.Gemm;

/**
 * Convolution as GEMMs on im2col panels, per image, group and tile of output rows:
 * <pre>
 *   forward        out[:, tile]  = W_g · panel                       (O/G × K)·(K × tile)
 *   input grad     dx           += col2im(W_gᵀ · gradOut[:, tile])   a transposed convolution
 *   weight grad    dW_gᵀ        += panel · gradOut[:, tile]ᵀ
 * </pre>
 * with K = C/G·kh·kw and each panel (K × tile) sized to half the L2 (PANEL_FLOATS), so
 * no buffer ever holds the whole (K × N·outH·outW) matrix. A 1×1, stride-1, unpadded convolution
 * skips the panel: the GEMM reads the image itself, and writes the input gradient straight into dx.
 * Small maps (fewer than {@link ImageBatchConv#SHORT_COLUMNS} outputs per image) put several
 * images side by side in one panel instead ({@link ImageBatchConv}).
 *
 * <p>Parallel over (image, group, tile) with each GEMM on one thread when there are at least as
 * many work items as cores, else one item after another with the GEMM itself parallel. The
 * backward splits by (image, group) — one writer per region of dx — and sums per-chunk weight
 * and bias gradients in chunk order, so results do not depend on scheduling. It walks each
 * tile's panel in slabs of channels (SLAB_FLOATS): im2col writes a slab and the weight
 * gradient's GEMM packs it, the input gradient's GEMM writes a slab of columns and col2im
 * folds it back, each while the slab is in L2. A slab's rows of dW_gᵀ and of W_gᵀ·gradOut are
 * those rows of the whole panel's products, so the results are the same.
 */
public final class Im2colConv {
    /** Floats in one panel: 128 Ki floats, 512 KiB, half a Zen 4/5 core's L2 (all of a Zen 3 core's). */
    static final int PANEL_FLOATS = 1 << 17;
    /** Floats in one slab of the backward's panels: 32 Ki floats, 128 KiB, a quarter of Zen 3's 512 KiB L2. */
    static final int SLAB_FLOATS = 1 << 15;

    private final Gemm gemm;
    private final TileMath math;
    private final ImageBatchConv imageBatch;

    public Im2colConv(Gemm gemm, TileMath math) {
        this.gemm = gemm;
        this.math = math;
        this.imageBatch = new ImageBatchConv(this, math);
    }

    /**
     * out (N, O, outH, outW), contiguous = conv2d(x, weight) + bias.
     *
     * @param x      (N·C·H, W) rows, or for a pointwise geometry (N·C, H·W) rows
     * @param weight (O, K) rows
     * @param bias   null or (O) consecutive
     */
    public void forward(Rows x, Rows weight, Rows bias, ConvGeometry g, float[] out) {
        int images = ImageBatchConv.imagesPerPanel(g);
        if (images > 1) {
            imageBatch.forward(x, weight, bias, g, images, out);
            return;
        }
        boolean pointwise = g.pointwise();
        int tileRows = pointwise ? g.outH() : tileRows(g), tiles = (g.outH() + tileRows - 1) / tileRows;
        int groups = g.groups(), og = g.groupOutChannels(), k = g.patchSize(), pixels = g.outPixels();
        int items = g.batch() * groups * tiles;
        boolean across = items >= CpuThreads.parallelism();
        ConvTaps rows = DepthwiseConv.rowTaps(g), cols = DepthwiseConv.colTaps(g);
        Parallel.forRange(items, across ? 1 : items, (from, to) -> {
            float[] panel = pointwise ? null : new float[k * tileRows * g.outW()];
            for (int item = from; item < to; item++) {
                int t = item % tiles, gi = item / tiles % groups, n = item / tiles / groups;
                int oh0 = t * tileRows, oh1 = Math.min(g.outH(), oh0 + tileRows);
                int lt = (oh1 - oh0) * g.outW(), l0 = oh0 * g.outW();
                int xRow = n * g.inChannels() + gi * g.groupInChannels();
                int cOff = (n * g.outChannels() + gi * og) * pixels + l0;
                if (pointwise) {
                    mul(!across, og, lt, k, weight.data(), weight.start(gi * og), weight.stride(), 1,
                            x.data(), x.start(xRow) + l0, x.stride(), 1, out, cOff, pixels);
                } else {
                    Im2colTiles.im2col(x, xRow * g.inH(), g, rows, cols, oh0, oh1, panel);
                    mul(!across, og, lt, k, weight.data(), weight.start(gi * og), weight.stride(), 1,
                            panel, 0, lt, 1, out, cOff, pixels);
                }
                if (bias != null) {
                    for (int o = 0; o < og; o++) math.addStrided(out, cOff + o * pixels, bias.data(), bias.offset() + gi * og + o, 0, lt);
                }
            }
        });
    }

    /**
     * The gradients asked for (non-null arrays, contiguous and zero-filled): dx (N, C, H, W),
     * dw (O, K), db (O). Both GEMMs read a row-major operand and pack only the small gradient
     * tile transposed: the weight gradient is accumulated as dW_gᵀ = panel·gradOutᵀ, and the
     * weight is transposed once for the input gradient's W_gᵀ.
     *
     * @param grad gradOut as (N·O, outH·outW) rows
     */
    public void backward(Rows grad, Rows x, Rows weight, ConvGeometry g, float[] dx, float[] dw, float[] db) {
        int images = ImageBatchConv.imagesPerPanel(g);
        if (images > 1) {
            imageBatch.backward(grad, x, g, images, dx == null ? null : transpose(weight, g.outChannels(), g.patchSize()), dx, dw, db);
            return;
        }
        boolean pointwise = g.pointwise();
        int tileRows = pointwise ? g.outH() : tileRows(g), tiles = (g.outH() + tileRows - 1) / tileRows;
        int groups = g.groups(), og = g.groupOutChannels(), cg = g.groupInChannels(), k = g.patchSize();
        int o = g.outChannels(), items = g.batch() * groups;
        boolean across = items >= CpuThreads.parallelism();
        int grain = across ? 1 : items, chunks = Parallel.chunks(items, grain);
        float[][] dwParts = new float[chunks][], dbParts = new float[chunks][];
        float[] wT = dx == null ? null : transpose(weight, o, k);                 // (K, O)
        ConvTaps rows = DepthwiseConv.rowTaps(g), cols = DepthwiseConv.colTaps(g);
        int planeIn = g.inH() * g.inW();
        int taps = g.kernelH() * g.kernelW(), slab = pointwise ? cg : slabChannels(g, tileRows * g.outW());
        Parallel.forChunks(items, grain, (chunk, from, to) -> {
            int panelSize = slab * taps * tileRows * g.outW();
            float[] panel = pointwise || dw == null ? null : new float[panelSize];
            float[] dcols = pointwise || dx == null ? null : new float[panelSize];
            float[] tmp = dw == null ? null : new float[slab * taps * og];
            float[] dwT = dw == null ? null : new float[dw.length], dbAcc = db == null ? null : new float[db.length];
            for (int item = from; item < to; item++) {
                int gi = item % groups, n = item / groups;
                int xRow = n * g.inChannels() + gi * cg;
                for (int t = 0; t < tiles; t++) {
                    int oh0 = t * tileRows, oh1 = Math.min(g.outH(), oh0 + tileRows);
                    int lt = (oh1 - oh0) * g.outW(), l0 = oh0 * g.outW();
                    int gOff = grad.start(n * o + gi * og) + l0;
                    if (dw != null) {                                           // dW_gᵀ (K × O/G) += cols · gradOutᵀ
                        if (pointwise) {
                            mul(!across, k, og, lt, x.data(), x.start(xRow) + l0, x.stride(), 1,
                                    grad.data(), gOff, 1, grad.stride(), tmp, 0, og);
                            math.addStrided(dwT, gi * k * og, tmp, 0, 1, k * og);
                        } else {
                            for (int c0 = 0; c0 < cg; c0 += slab) {                // one slab of panel rows at a time
                                int c1 = Math.min(cg, c0 + slab), r0 = c0 * taps, rs = (c1 - c0) * taps;
                                Im2colTiles.im2col(x, xRow * g.inH(), c0, c1, g, rows, cols, oh0, oh1, panel, 0, lt);
                                mul(!across, rs, og, lt, panel, 0, lt, 1, grad.data(), gOff, 1, grad.stride(), tmp, 0, og);
                                math.addStrided(dwT, (gi * k + r0) * og, tmp, 0, 1, rs * og);
                            }
                        }
                    }
                    if (dx != null) {                                           // W_gᵀ · gradOut, folded back
                        int dxOff = xRow * planeIn;
                        if (pointwise) {
                            mul(!across, cg, lt, og, wT, gi * og, o, 1, grad.data(), gOff, grad.stride(), 1,
                                    dx, dxOff + l0, planeIn);
                        } else {
                            for (int c0 = 0; c0 < cg; c0 += slab) {
                                int c1 = Math.min(cg, c0 + slab), r0 = c0 * taps, rs = (c1 - c0) * taps;
                                mul(!across, rs, lt, og, wT, r0 * o + gi * og, o, 1, grad.data(), gOff, grad.stride(), 1,
                                        dcols, 0, lt);
                                Im2colTiles.col2im(dcols, 0, lt, c0, c1, g, rows, cols, oh0, oh1, dx, dxOff, math);
                            }
                        }
                    }
                }
                if (db != null) {
                    for (int c = 0; c < og; c++) {
                        int row = grad.start(n * o + gi * og + c);
                        float s = 0;
                        for (int l = 0; l < g.outPixels(); l++) s += grad.data()[row + l];
                        dbAcc[gi * og + c] += s;
                    }
                }
            }
            dwParts[chunk] = dwT;
            dbParts[chunk] = dbAcc;
        });
        addChunkParts(dwParts, dbParts, g, dw, db);
    }

    /** Adds the chunks' weight (dW_gᵀ blocks) and bias gradients in chunk order, so the sums do not depend on scheduling. */
    void addChunkParts(float[][] dwParts, float[][] dbParts, ConvGeometry g, float[] dw, float[] db) {
        for (int c = 0; c < dwParts.length; c++) {
            if (dw != null) addTransposed(dwParts[c], g.groups(), g.patchSize(), g.groupOutChannels(), dw);
            if (db != null) math.addStrided(db, 0, dbParts[c], 0, 1, db.length);
        }
    }

    /** The (rows, cols) matrix as a fresh (cols, rows) one. */
    private static float[] transpose(Rows m, int rows, int cols) {
        float[] t = new float[rows * cols];
        for (int r = 0; r < rows; r++) {
            int src = m.start(r);
            for (int c = 0; c < cols; c++) t[c * rows + r] = m.data()[src + c];
        }
        return t;
    }

    /** dw[(g·og + o)·K + p] += dwT[g·K·og + p·og + o]: one group's (K × og) block back to (og × K) rows. */
    private static void addTransposed(float[] dwT, int groups, int k, int og, float[] dw) {
        for (int gi = 0; gi < groups; gi++) {
            for (int p = 0; p < k; p++) {
                int src = gi * k * og + p * og;
                for (int c = 0; c < og; c++) dw[(gi * og + c) * k + p] += dwT[src + c];
            }
        }
    }

    /**
     * Channels per slab of the backward's panels: (channels·kh·kw) × tile columns within
     * SLAB_FLOATS, so the slab im2col or the input gradient's GEMM writes is still in L2 when
     * the GEMM packs it or col2im reads it. At least one, at most the group's channels.
     */
    static int slabChannels(ConvGeometry g, int tileColumns) {
        long perChannel = (long) g.kernelH() * g.kernelW() * tileColumns;
        return (int) Math.max(1, Math.min(g.groupInChannels(), SLAB_FLOATS / perChannel));
    }

    /** Output rows per panel: as many as fit PANEL_FLOATS, at least one. */
    static int tileRows(ConvGeometry g) {
        long perRow = (long) g.patchSize() * g.outW();
        return (int) Math.max(1, Math.min(g.outH(), PANEL_FLOATS / Math.max(1, perRow)));
    }

    /** C = A·B on this thread ({@code parallel} false: the caller already runs one item per core) or across the pool. */
    void mul(boolean parallel, int m, int n, int k, float[] a, int aOff, int ars, int acs,
                     float[] b, int bOff, int brs, int bcs, float[] c, int cOff, int ldc) {
        if (parallel) {
            gemm.sgemm(m, n, k, a, aOff, ars, acs, b, bOff, brs, bcs, c, cOff, ldc);
        } else {
            gemm.sgemmBatched(1, m, n, k, a, aOff, 0, ars, acs, b, bOff, 0, brs, bcs, c, cOff, 0, ldc);
        }
    }
}
