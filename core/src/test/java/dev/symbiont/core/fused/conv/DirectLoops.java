package dev.symbiont.core.fused.conv;

/**
 * Convolution and pooling by their definitions, in double over row-major arrays: the
 * independent oracle the reference kernels are checked against.
 */
final class DirectLoops {
    private DirectLoops() {}

    static double[] conv2d(float[] x, float[] w, float[] bias, ConvGeometry g) {
        int cg = g.groupInChannels(), og = g.groupOutChannels();
        double[] out = new double[g.batch() * g.outChannels() * g.outPixels()];
        int k = 0;
        for (int n = 0; n < g.batch(); n++) for (int o = 0; o < g.outChannels(); o++) {
            int group = o / og;
            for (int oh = 0; oh < g.outH(); oh++) for (int ow = 0; ow < g.outW(); ow++) {
                double s = bias == null ? 0 : bias[o];
                for (int c = 0; c < cg; c++) for (int i = 0; i < g.kernelH(); i++) for (int j = 0; j < g.kernelW(); j++) {
                    int h = oh * g.strideH() - g.padH() + i * g.dilationH(), ww = ow * g.strideW() - g.padW() + j * g.dilationW();
                    if (h < 0 || h >= g.inH() || ww < 0 || ww >= g.inW()) continue;
                    int ch = group * cg + c;
                    s += (double) w[((o * cg + c) * g.kernelH() + i) * g.kernelW() + j]
                            * x[((n * g.inChannels() + ch) * g.inH() + h) * g.inW() + ww];
                }
                out[k++] = s;
            }
        }
        return out;
    }

    /** Max (avg = false) or average pooling; the average's divisor as {@link PoolGeometry#divisor}. */
    static double[] pool(float[] x, PoolGeometry g, boolean avg, boolean countIncludePad) {
        double[] out = new double[g.batch() * g.channels() * g.outH() * g.outW()];
        int k = 0;
        for (int p = 0; p < g.batch() * g.channels(); p++) {
            for (int oh = 0; oh < g.outH(); oh++) for (int ow = 0; ow < g.outW(); ow++) {
                double acc = avg ? 0 : Double.NEGATIVE_INFINITY;
                for (int i = 0; i < g.kernelH(); i++) for (int j = 0; j < g.kernelW(); j++) {
                    int h = g.rowStart(oh) + i * g.dilationH(), w = g.colStart(ow) + j * g.dilationW();
                    if (h < 0 || h >= g.inH() || w < 0 || w >= g.inW()) continue;
                    double v = x[(p * g.inH() + h) * g.inW() + w];
                    acc = avg ? acc + v : Math.max(acc, v);
                }
                out[k++] = avg ? acc / g.divisor(oh, ow, countIncludePad) : acc;
            }
        }
        return out;
    }

    static double[] adaptiveAvg(float[] x, int planes, int inH, int inW, int outH, int outW) {
        double[] out = new double[planes * outH * outW];
        int k = 0;
        for (int p = 0; p < planes; p++) for (int oh = 0; oh < outH; oh++) for (int ow = 0; ow < outW; ow++) {
            int h0 = PoolGeometry.adaptiveStart(oh, inH, outH), h1 = PoolGeometry.adaptiveEnd(oh, inH, outH);
            int w0 = PoolGeometry.adaptiveStart(ow, inW, outW), w1 = PoolGeometry.adaptiveEnd(ow, inW, outW);
            double s = 0;
            for (int h = h0; h < h1; h++) for (int w = w0; w < w1; w++) s += x[(p * inH + h) * inW + w];
            out[k++] = s / ((h1 - h0) * (w1 - w0));
        }
        return out;
    }
}
