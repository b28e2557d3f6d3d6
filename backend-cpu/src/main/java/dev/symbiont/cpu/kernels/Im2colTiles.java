package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.ConvGeometry;

import java.util.Arrays;

/**
 * im2col and col2im on a tile of output rows of one image and one group: the (C/G·kh·kw) ×
 * (rows·outW) panel the convolution GEMM reads, sized by the caller to stay in L2, so no
 * buffer ever spans the whole (C·kh·kw) × (N·outH·outW) matrix. Panel row r = (c, i, j)
 * holds, for each output (oh, ow) of the tile, the input cell (oh·s_h − p_h + i·d_h,
 * ow·s_w − p_w + j·d_w), zero in the padding. Runs of a row are copied (stride 1) or stepped
 * through with no bounds test per element ({@link ConvTaps}).
 */
public final class Im2colTiles {
    private Im2colTiles() {}

    /**
     * Fills {@code cols} (patchSize × (oh1 − oh0)·outW, row-major) from x.
     *
     * @param x       the input as (N·C·H, W) rows
     * @param rowBase x's row of (image n, first channel of the group, h = 0): (n·C + g·C/G)·H
     */
    public static void im2col(Rows x, int rowBase, ConvGeometry g, ConvTaps rows, ConvTaps cols, int oh0, int oh1, float[] panel) {
        im2col(x, rowBase, g, rows, cols, oh0, oh1, panel, 0, (oh1 - oh0) * g.outW());
    }

    /**
     * As {@link #im2col(Rows, int, ConvGeometry, ConvTaps, ConvTaps, int, int, float[])} into the
     * columns [off, off + (oh1 − oh0)·outW) of a wider panel whose rows are {@code ld} apart: several
     * images side by side in one panel.
     */
    public static void im2col(Rows x, int rowBase, ConvGeometry g, ConvTaps rows, ConvTaps cols, int oh0, int oh1,
                              float[] panel, int off, int ld) {
        im2col(x, rowBase, 0, g.groupInChannels(), g, rows, cols, oh0, oh1, panel, off, ld);
    }

    /**
     * The panel rows of the group's channels [c0, c1) only, from row 0 of {@code panel}: a slab of
     * (c1 − c0)·kh·kw rows, so a caller can keep a part of a tall panel in cache.
     */
    public static void im2col(Rows x, int rowBase, int c0, int c1, ConvGeometry g, ConvTaps rows, ConvTaps cols,
                              int oh0, int oh1, float[] panel, int off, int ld) {
        int ow = g.outW(), sw = g.strideW();
        float[] xd = x.data();
        int rowStart = off;
        for (int c = c0; c < c1; c++) {
            for (int i = 0; i < g.kernelH(); i++) {
                for (int j = 0; j < g.kernelW(); j++, rowStart += ld) {
                    int lo = cols.lo()[j], hi = cols.hi()[j], first = cols.first()[j];
                    int dst = rowStart;
                    for (int oh = oh0; oh < oh1; oh++, dst += ow) {
                        if (oh < rows.lo()[i] || oh >= rows.hi()[i]) {
                            Arrays.fill(panel, dst, dst + ow, 0f);
                            continue;
                        }
                        int h = rows.first()[i] + oh * g.strideH();
                        int src = x.start(rowBase + c * g.inH() + h) + first;
                        if (lo > 0) Arrays.fill(panel, dst, dst + lo, 0f);
                        if (sw == 1) {
                            System.arraycopy(xd, src + lo, panel, dst + lo, hi - lo);
                        } else {
                            for (int o = lo; o < hi; o++) panel[dst + o] = xd[src + o * sw];
                        }
                        if (hi < ow) Arrays.fill(panel, dst + hi, dst + ow, 0f);
                    }
                }
            }
        }
        assert rowStart == off + (c1 - c0) * g.kernelH() * g.kernelW() * ld;
    }

    /**
     * Adds the panel back into the cells it was read from: dx[n, c, h, w] += panel[(c, i, j), (oh, ow)].
     *
     * @param dx     contiguous (N, C, H, W)
     * @param dxBase where (image n, first channel of the group) starts in dx
     */
    public static void col2im(float[] panel, ConvGeometry g, ConvTaps rows, ConvTaps cols, int oh0, int oh1,
                              float[] dx, int dxBase, TileMath math) {
        col2im(panel, 0, (oh1 - oh0) * g.outW(), g, rows, cols, oh0, oh1, dx, dxBase, math);
    }

    /** As {@link #col2im(float[], ConvGeometry, ConvTaps, ConvTaps, int, int, float[], int, TileMath)} from columns off… of a panel whose rows are {@code ld} apart. */
    public static void col2im(float[] panel, int off, int ld, ConvGeometry g, ConvTaps rows, ConvTaps cols, int oh0, int oh1,
                              float[] dx, int dxBase, TileMath math) {
        col2im(panel, off, ld, 0, g.groupInChannels(), g, rows, cols, oh0, oh1, dx, dxBase, math);
    }

    /** As col2im for a slab holding only the panel rows of the group's channels [c0, c1). */
    public static void col2im(float[] panel, int off, int ld, int c0, int c1, ConvGeometry g, ConvTaps rows, ConvTaps cols,
                              int oh0, int oh1, float[] dx, int dxBase, TileMath math) {
        int ow = g.outW(), sw = g.strideW(), w = g.inW();
        int rowStart = off;
        for (int c = c0; c < c1; c++) {
            for (int i = 0; i < g.kernelH(); i++) {
                for (int j = 0; j < g.kernelW(); j++, rowStart += ld) {
                    int lo = cols.lo()[j], hi = cols.hi()[j], first = cols.first()[j];
                    int src = rowStart;
                    for (int oh = oh0; oh < oh1; oh++, src += ow) {
                        if (oh < rows.lo()[i] || oh >= rows.hi()[i]) continue;
                        int h = rows.first()[i] + oh * g.strideH();
                        int dst = dxBase + (c * g.inH() + h) * w + first;
                        if (sw == 1) {
                            math.addStrided(dx, dst + lo, panel, src + lo, 1, hi - lo);
                        } else {
                            for (int o = lo; o < hi; o++) dx[dst + o * sw] += panel[src + o];
                        }
                    }
                }
            }
        }
    }
}
