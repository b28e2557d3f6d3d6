package dev.symbiont.cpu.kernels;

import dev.symbiont.core.fused.conv.ConvGeometry;

/**
 * The direct depthwise convolution (groups = C = O, ConvNeXt's 7×7): each channel's plane
 * convolved with its own kh×kw taps, one multiply-add of a whole output row per tap
 * ({@link TileMath#axpy} on the Vector API at stride 1), so no im2col panel is built for a
 * product that would have one row. Work is split by channel: a channel's output, input
 * gradient, weight and bias gradient are written by one thread only, so the sums are
 * deterministic.
 */
public final class DepthwiseConv {
    private DepthwiseConv() {}

    /**
     * out (N, C, outH, outW), contiguous and zero-filled, += taps; then the bias.
     *
     * @param x      the input as (N·C·H, W) rows
     * @param weight the weight as (C, kh·kw) rows
     * @param bias   null or (C) consecutive from bias.offset()
     */
    public static void forward(Rows x, Rows weight, Rows bias, ConvGeometry g, float[] out, TileMath math) {
        ConvTaps rows = rowTaps(g), cols = colTaps(g);
        int planeOut = g.outPixels();
        Parallel.forRange(g.inChannels(), grain(g), (c0, c1) -> {
            for (int c = c0; c < c1; c++) {
                for (int n = 0; n < g.batch(); n++) {
                    int plane = n * g.inChannels() + c, o = plane * planeOut;
                    if (bias != null) java.util.Arrays.fill(out, o, o + planeOut, bias.data()[bias.offset() + c]);
                    for (int i = 0; i < g.kernelH(); i++) {
                        for (int oh = rows.lo()[i]; oh < rows.hi()[i]; oh++) {
                            int src = x.start(plane * g.inH() + rows.first()[i] + oh * g.strideH());
                            int dst = o + oh * g.outW();
                            for (int j = 0; j < g.kernelW(); j++) {
                                float w = weight.data()[weight.start(c) + i * g.kernelW() + j];
                                tap(w, x.data(), src + cols.first()[j], out, dst, cols.lo()[j], cols.hi()[j], g.strideW(), math);
                            }
                        }
                    }
                }
            }
        });
    }

    /**
     * The gradients: dx (contiguous, zero-filled, or null) += taps of gradOut; dw[c, i, j] and
     * db[c] (contiguous, or null) = sums over the batch and positions.
     *
     * @param grad gradOut as (N·C·outH, outW) rows
     */
    public static void backward(Rows grad, Rows x, Rows weight, ConvGeometry g, float[] dx, float[] dw, float[] db,
                                TileMath math) {
        ConvTaps rows = rowTaps(g), cols = colTaps(g);
        int kk = g.kernelH() * g.kernelW(), sw = g.strideW();
        Parallel.forRange(g.inChannels(), grain(g), (c0, c1) -> {
            for (int c = c0; c < c1; c++) {
                for (int n = 0; n < g.batch(); n++) {
                    int plane = n * g.inChannels() + c;
                    for (int i = 0; i < g.kernelH(); i++) {
                        for (int oh = rows.lo()[i]; oh < rows.hi()[i]; oh++) {
                            int h = rows.first()[i] + oh * g.strideH();
                            int gRow = grad.start(plane * g.outH() + oh);
                            int xRow = dw == null ? 0 : x.start(plane * g.inH() + h);
                            for (int j = 0; j < g.kernelW(); j++) {
                                int lo = cols.lo()[j], hi = cols.hi()[j], first = cols.first()[j];
                                if (dx != null) {
                                    float w = weight.data()[weight.start(c) + i * g.kernelW() + j];
                                    int dst = (plane * g.inH() + h) * g.inW() + first;
                                    if (sw == 1) {
                                        math.axpy(w, grad.data(), gRow + lo, dx, dst + lo, hi - lo);
                                    } else {
                                        for (int o = lo; o < hi; o++) dx[dst + o * sw] += w * grad.data()[gRow + o];
                                    }
                                }
                                if (dw != null) {
                                    float s;
                                    if (sw == 1) {
                                        s = math.dot(grad.data(), gRow + lo, x.data(), xRow + first + lo, hi - lo);
                                    } else {
                                        s = 0;
                                        for (int o = lo; o < hi; o++) s += grad.data()[gRow + o] * x.data()[xRow + first + o * sw];
                                    }
                                    dw[c * kk + i * g.kernelW() + j] += s;
                                }
                            }
                        }
                    }
                    if (db != null) {
                        float s = 0;
                        for (int oh = 0; oh < g.outH(); oh++) {
                            int gRow = grad.start(plane * g.outH() + oh);
                            for (int o = 0; o < g.outW(); o++) s += grad.data()[gRow + o];
                        }
                        db[c] += s;
                    }
                }
            }
        });
    }

    /** out[dst + ow] += w · x[src + ow·stride] for ow in [lo, hi). */
    private static void tap(float w, float[] x, int src, float[] out, int dst, int lo, int hi, int stride, TileMath math) {
        if (stride == 1) {
            math.axpy(w, x, src + lo, out, dst + lo, hi - lo);
        } else {
            for (int o = lo; o < hi; o++) out[dst + o] += w * x[src + o * stride];
        }
    }

    /** Channels per chunk that keep a chunk above {@link Parallel#ELEMENT_GRAIN} multiply-adds. */
    private static int grain(ConvGeometry g) {
        long perChannel = (long) g.batch() * g.outPixels() * g.kernelH() * g.kernelW();
        return (int) Math.max(1, Parallel.ELEMENT_GRAIN / Math.max(1, perChannel));
    }

    static ConvTaps rowTaps(ConvGeometry g) {
        return ConvTaps.of(g.inH(), g.outH(), g.kernelH(), g.strideH(), g.padH(), g.dilationH());
    }

    static ConvTaps colTaps(ConvGeometry g) {
        return ConvTaps.of(g.inW(), g.outW(), g.kernelW(), g.strideW(), g.padW(), g.dilationW());
    }
}
