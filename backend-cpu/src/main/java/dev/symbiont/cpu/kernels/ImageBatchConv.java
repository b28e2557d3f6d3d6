package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.cpu.CpuThreads;

/**
 * Convolution of small feature maps with several images side by side in one im2col panel:
 * columns = images × output positions, so a 4×4 or 2×2 map gives one GEMM of a few hundred
 * columns instead of many of 16 or 4, which the GEMM's packing and micro-tile edges dominate.
 * <pre>
 *   forward        out[b, :, :]   = W_g · panel[:, b]                   (O/G × K)·(K × B·outH·outW)
 *   input grad     dx[b]         += col2im((W_gᵀ · gradOut)[:, b])
 *   weight grad    dW_gᵀ         += panel · gradOutᵀ                    one GEMM of depth B·outH·outW
 * </pre>
 * gradOut's rows for the B images are gathered into one (O/G × B·outH·outW) block, and the forward
 * writes a block of the same shape that is scattered back to (N, O, outH, outW). Work items are
 * (block of images, group); per-chunk weight and bias gradients are summed in chunk order, as
 * {@link Im2colConv} does, so the result does not depend on scheduling.
 */
final class ImageBatchConv {
    /** Per-image outputs below this many positions are batched; also the panel width aimed at. */
    static final int SHORT_COLUMNS = 128;

    private final Im2colConv conv;
    private final TileMath math;

    ImageBatchConv(Im2colConv conv, TileMath math) {
        this.conv = conv;
        this.math = math;
    }

    /**
     * Images per panel: 1 (use the per-image path) unless the map is short; else as many as
     * reach SHORT_COLUMNS columns, fit the panel budget, and still leave one block per core.
     */
    static int imagesPerPanel(ConvGeometry g) {
        int pixels = g.outPixels();
        if (g.pointwise() || pixels >= SHORT_COLUMNS || g.batch() == 1) return 1;
        long perImage = (long) g.patchSize() * pixels;
        long fit = Im2colConv.PANEL_FLOATS / perImage;
        int wanted = (SHORT_COLUMNS + pixels - 1) / pixels;
        int perCore = (g.batch() + CpuThreads.parallelism() - 1) / CpuThreads.parallelism();
        return (int) Math.max(1, Math.min(Math.min(fit, wanted), perCore));
    }

    /** As {@link Im2colConv#forward} for a geometry with {@code images} = imagesPerPanel(g) &gt; 1. */
    void forward(Rows x, Rows weight, Rows bias, ConvGeometry g, int images, float[] out) {
        int groups = g.groups(), og = g.groupOutChannels(), k = g.patchSize(), pixels = g.outPixels();
        int blocks = (g.batch() + images - 1) / images, items = blocks * groups;
        boolean across = items >= CpuThreads.parallelism();
        ConvTaps rows = DepthwiseConv.rowTaps(g), cols = DepthwiseConv.colTaps(g);
        Parallel.forRange(items, across ? 1 : items, (from, to) -> {
            float[] panel = new float[k * images * pixels], block = new float[og * images * pixels];
            for (int item = from; item < to; item++) {
                int gi = item % groups, n0 = item / groups * images, nb = Math.min(images, g.batch() - n0);
                int width = nb * pixels;
                for (int b = 0; b < nb; b++) {
                    int xRow = (n0 + b) * g.inChannels() + gi * g.groupInChannels();
                    Im2colTiles.im2col(x, xRow * g.inH(), g, rows, cols, 0, g.outH(), panel, b * pixels, width);
                }
                conv.mul(!across, og, width, k, weight.data(), weight.start(gi * og), weight.stride(), 1,
                        panel, 0, width, 1, block, 0, width);
                for (int b = 0; b < nb; b++) {
                    for (int o = 0; o < og; o++) {
                        int dst = ((n0 + b) * g.outChannels() + gi * og + o) * pixels;
                        System.arraycopy(block, o * width + b * pixels, out, dst, pixels);
                        if (bias != null) math.addStrided(out, dst, bias.data(), bias.offset() + gi * og + o, 0, pixels);
                    }
                }
            }
        });
    }

    /** As {@link Im2colConv#backward} for a geometry with {@code images} = imagesPerPanel(g) &gt; 1. */
    void backward(Rows grad, Rows x, ConvGeometry g, int images, float[] wT, float[] dx, float[] dw, float[] db) {
        int groups = g.groups(), og = g.groupOutChannels(), cg = g.groupInChannels(), k = g.patchSize();
        int o = g.outChannels(), pixels = g.outPixels(), planeIn = g.inH() * g.inW();
        int blocks = (g.batch() + images - 1) / images, items = blocks * groups;
        boolean across = items >= CpuThreads.parallelism();
        int grain = across ? 1 : items, chunks = Parallel.chunks(items, grain);
        float[][] dwParts = new float[chunks][], dbParts = new float[chunks][];
        ConvTaps rows = DepthwiseConv.rowTaps(g), cols = DepthwiseConv.colTaps(g);
        Parallel.forChunks(items, grain, (chunk, from, to) -> {
            int panelSize = k * images * pixels;
            float[] panel = dw == null ? null : new float[panelSize];
            float[] dcols = dx == null ? null : new float[panelSize];
            float[] block = new float[og * images * pixels];
            float[] tmp = dw == null ? null : new float[k * og];
            float[] dwT = dw == null ? null : new float[dw.length], dbAcc = db == null ? null : new float[db.length];
            for (int item = from; item < to; item++) {
                int gi = item % groups, n0 = item / groups * images, nb = Math.min(images, g.batch() - n0);
                int width = nb * pixels;
                for (int b = 0; b < nb; b++) {                                  // gradOut (O/G × B·outH·outW)
                    for (int c = 0; c < og; c++) {
                        System.arraycopy(grad.data(), grad.start((n0 + b) * o + gi * og + c), block, c * width + b * pixels, pixels);
                    }
                }
                if (dw != null) {                                               // dW_gᵀ (K × O/G) += panel · gradOutᵀ
                    for (int b = 0; b < nb; b++) {
                        int xRow = (n0 + b) * g.inChannels() + gi * cg;
                        Im2colTiles.im2col(x, xRow * g.inH(), g, rows, cols, 0, g.outH(), panel, b * pixels, width);
                    }
                    conv.mul(!across, k, og, width, panel, 0, width, 1, block, 0, 1, width, tmp, 0, og);
                    math.addStrided(dwT, gi * k * og, tmp, 0, 1, k * og);
                }
                if (dx != null) {                                               // W_gᵀ · gradOut, folded back per image
                    conv.mul(!across, k, width, og, wT, gi * og, o, 1, block, 0, width, 1, dcols, 0, width);
                    for (int b = 0; b < nb; b++) {
                        int dxOff = ((n0 + b) * g.inChannels() + gi * cg) * planeIn;
                        Im2colTiles.col2im(dcols, b * pixels, width, g, rows, cols, 0, g.outH(), dx, dxOff, math);
                    }
                }
                if (db != null) {
                    for (int c = 0; c < og; c++) {
                        float s = 0;
                        for (int l = c * width, end = l + width; l < end; l++) s += block[l];
                        dbAcc[gi * og + c] += s;
                    }
                }
            }
            dwParts[chunk] = dwT;
            dbParts[chunk] = dbAcc;
        });
        conv.addChunkParts(dwParts, dbParts, g, dw, db);
    }
}
