package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.PoolGeometry;

/**
 * Max, average and adaptive average pooling as direct loops over each (N·C) plane, in
 * parallel across planes: each output reads its window once, each input gradient plane is
 * written by the thread that owns it. Pooling moves a few bytes per output, so the loops are
 * plain Java; the convolution is where the FLOPs are.
 */
public final class PoolLoops {
    private PoolLoops() {}

    /**
     * Window maxima into out and their h·W + w into indices (both contiguous (N, C, outH, outW));
     * the first maximum in window order wins, and a NaN over any number (the last NaN), as in
     * PyTorch's CPU kernel.
     *
     * @param x the input as (N·C·H, W) rows
     */
    public static void maxForward(Rows x, PoolGeometry g, float[] out, long[] indices) {
        int cells = g.outH() * g.outW();
        Parallel.forRange(g.batch() * g.channels(), grain(g), (p0, p1) -> {
            for (int p = p0; p < p1; p++) {
                for (int oh = 0; oh < g.outH(); oh++) {
                    for (int ow = 0; ow < g.outW(); ow++) {
                        float best = Float.NEGATIVE_INFINITY;
                        long at = -1;
                        for (int i = 0; i < g.kernelH(); i++) {
                            int h = g.rowStart(oh) + i * g.dilationH();
                            if (h < 0 || h >= g.inH()) continue;
                            int row = x.start(p * g.inH() + h);
                            for (int j = 0; j < g.kernelW(); j++) {
                                int w = g.colStart(ow) + j * g.dilationW();
                                if (w < 0 || w >= g.inW()) continue;
                                float v = x.data()[row + w];
                                if (v > best || Float.isNaN(v) || at < 0) {
                                    best = v;
                                    at = (long) h * g.inW() + w;
                                }
                            }
                        }
                        int o = p * cells + oh * g.outW() + ow;
                        out[o] = best;
                        indices[o] = at;
                    }
                }
            }
        });
    }

    /** dx (contiguous, zero-filled) += gradOut at the saved indices. */
    public static void maxBackward(Rows grad, long[] indices, PoolGeometry g, float[] dx) {
        int planeIn = g.inH() * g.inW(), cells = g.outH() * g.outW();
        Parallel.forRange(g.batch() * g.channels(), grain(g), (p0, p1) -> {
            for (int p = p0; p < p1; p++) {
                for (int oh = 0; oh < g.outH(); oh++) {
                    int gRow = grad.start(p * g.outH() + oh);
                    for (int ow = 0; ow < g.outW(); ow++) {
                        long at = indices[p * cells + oh * g.outW() + ow];
                        if (at < 0 || at >= planeIn) {
                            throw new IndexOutOfBoundsException("max_pool2d backward: index " + at + " of output "
                                    + (p * cells + oh * g.outW() + ow) + " is outside a plane of " + planeIn + " cells");
                        }
                        dx[p * planeIn + (int) at] += grad.data()[gRow + ow];
                    }
                }
            }
        });
    }

    /** Window sums over {@link PoolGeometry#divisor} into out, contiguous (N, C, outH, outW). */
    public static void avgForward(Rows x, PoolGeometry g, boolean countIncludePad, float[] out) {
        int cells = g.outH() * g.outW();
        Parallel.forRange(g.batch() * g.channels(), grain(g), (p0, p1) -> {
            for (int p = p0; p < p1; p++) {
                for (int oh = 0; oh < g.outH(); oh++) {
                    int h0 = Math.max(g.rowStart(oh), 0), h1 = Math.min(g.rowStart(oh) + g.kernelH(), g.inH());
                    for (int ow = 0; ow < g.outW(); ow++) {
                        int w0 = Math.max(g.colStart(ow), 0), w1 = Math.min(g.colStart(ow) + g.kernelW(), g.inW());
                        float s = 0;
                        for (int h = h0; h < h1; h++) {
                            int row = x.start(p * g.inH() + h);
                            for (int w = w0; w < w1; w++) s += x.data()[row + w];
                        }
                        out[p * cells + oh * g.outW() + ow] = s / g.divisor(oh, ow, countIncludePad);
                    }
                }
            }
        });
    }

    /** dx (contiguous, zero-filled) += each window's gradient over its divisor, spread over its input cells. */
    public static void avgBackward(Rows grad, PoolGeometry g, boolean countIncludePad, float[] dx) {
        int planeIn = g.inH() * g.inW();
        Parallel.forRange(g.batch() * g.channels(), grain(g), (p0, p1) -> {
            for (int p = p0; p < p1; p++) {
                for (int oh = 0; oh < g.outH(); oh++) {
                    int h0 = Math.max(g.rowStart(oh), 0), h1 = Math.min(g.rowStart(oh) + g.kernelH(), g.inH());
                    int gRow = grad.start(p * g.outH() + oh);
                    for (int ow = 0; ow < g.outW(); ow++) {
                        int w0 = Math.max(g.colStart(ow), 0), w1 = Math.min(g.colStart(ow) + g.kernelW(), g.inW());
                        float share = grad.data()[gRow + ow] / g.divisor(oh, ow, countIncludePad);
                        for (int h = h0; h < h1; h++) {
                            int row = p * planeIn + h * g.inW();
                            for (int w = w0; w < w1; w++) dx[row + w] += share;
                        }
                    }
                }
            }
        });
    }

    /**
     * Adaptive average pooling of x (planes·inH, inW rows) into out (planes, outH, outW),
     * or, when {@code backward}, the gradient out spread back into dx (planes, inH, inW).
     */
    public static void adaptive(Rows src, int planes, int inH, int inW, int outH, int outW, float[] dst, boolean backward) {
        int grain = Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, inH * inW));
        Parallel.forRange(planes, grain, (p0, p1) -> {
            for (int p = p0; p < p1; p++) {
                for (int oh = 0; oh < outH; oh++) {
                    int h0 = PoolGeometry.adaptiveStart(oh, inH, outH), h1 = PoolGeometry.adaptiveEnd(oh, inH, outH);
                    for (int ow = 0; ow < outW; ow++) {
                        int w0 = PoolGeometry.adaptiveStart(ow, inW, outW), w1 = PoolGeometry.adaptiveEnd(ow, inW, outW);
                        float scale = 1f / ((h1 - h0) * (w1 - w0));
                        if (backward) {
                            float share = src.data()[src.start(p * outH + oh) + ow] * scale;
                            for (int h = h0; h < h1; h++) {
                                int row = (p * inH + h) * inW;
                                for (int w = w0; w < w1; w++) dst[row + w] += share;
                            }
                        } else {
                            float s = 0;
                            for (int h = h0; h < h1; h++) {
                                int row = src.start(p * inH + h);
                                for (int w = w0; w < w1; w++) s += src.data()[row + w];
                            }
                            dst[(p * outH + oh) * outW + ow] = s * scale;
                        }
                    }
                }
            }
        });
    }

    /** Planes per chunk that keep a chunk above {@link Parallel#ELEMENT_GRAIN} window reads. */
    private static int grain(PoolGeometry g) {
        long perPlane = (long) g.outH() * g.outW() * g.kernelH() * g.kernelW() + (long) g.inH() * g.inW();
        return (int) Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, perPlane));
    }
}
