package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;
import static dev.symbiont.cpu.kernels.VectorReductions.load;

/**
 * Batch norm and group norm of x (N, C, L), forward and backward. x is given as N·C rows of L
 * consecutive floats, row n·C + c holding (n, c, ·). Batch norm runs one task per channel (its
 * N rows: statistics, then the normalised rows while they sit in cache), group norm one task
 * per (n, group); tasks spread over the pool. Each task writes only its own outputs, and the
 * group-norm weight gradient sums per-(n, c) partials over n in order at the end, so results
 * do not depend on thread timing.
 *
 * <p>Arithmetic follows the reference composition: mean = Σx / M, var = Σ(x − mean)² / M
 * (sums of float vector blocks carried in double), rstd = 1/√(var + eps) with eps rounded to
 * float, y = ((x − mean)·rstd)·w + b. A null weight or bias is absent (w = 1, b = 0, which
 * rounds the same). Outputs are contiguous (N, C, L).
 */
public final class VectorChannelNorms {
    private VectorChannelNorms() {}

    /** Training-mode batch norm: y (N·C·L) and, per channel, mean, biased var and rstd (C). */
    public static void batchNorm(Rows x, int n, int c, int l, float[] w, int wOff, float[] b, int bOff, double eps,
                                 float[] y, float[] mean, float[] var, float[] rstd) {
        float epsF = (float) eps;
        double m = (double) n * l;
        Parallel.forRange(c, Parallel.rowGrain(n * l), (from, to) -> {
            float[] xd = x.data();
            for (int ch = from; ch < to; ch++) {
                double s = 0;
                for (int i = 0; i < n; i++) s += VectorReductions.sum(xd, x.start(i * c + ch), l);
                float mu = (float) (s / m);
                double sq = 0;
                for (int i = 0; i < n; i++) sq += squaredDeviation(xd, x.start(i * c + ch), l, mu);
                float v = (float) (sq / m), rs = (float) (1.0 / Math.sqrt(v + epsF));
                mean[ch] = mu;
                var[ch] = v;
                rstd[ch] = rs;
                float wc = w == null ? 1f : w[wOff + ch], bc = b == null ? 0f : b[bOff + ch];
                for (int i = 0; i < n; i++) normalize(xd, x.start(i * c + ch), l, mu, rs, wc, bc, y, (i * c + ch) * l);
            }
        });
    }

    /** Batch norm with given statistics: mean and rstd hold C values each from their offsets. */
    public static void batchNormEval(Rows x, int n, int c, int l, Rows mean, Rows rstd, float[] w, int wOff,
                                     float[] b, int bOff, float[] y) {
        Parallel.forRange(n * c, Parallel.rowGrain(l), (from, to) -> {
            for (int r = from; r < to; r++) {
                int ch = r % c;
                normalize(x.data(), x.start(r), l, mean.data()[mean.offset() + ch], rstd.data()[rstd.offset() + ch],
                        w == null ? 1f : w[wOff + ch], b == null ? 0f : b[bOff + ch], y, r * l);
            }
        });
    }

    /**
     * Batch norm gradients per channel: gb = Σg, gw = Σg·xhat over its N·L values, and
     * gx = (g·w − w·Σg/M − xhat·w·Σg·xhat/M)·rstd in training, g·w·rstd otherwise.
     * gw and gb (C) are filled when non-null.
     */
    public static void batchNormBackward(Rows g, Rows x, int n, int c, int l, float[] w, int wOff, Rows mean, Rows rstd,
                                         boolean training, float[] gx, float[] gw, float[] gb) {
        double m = (double) n * l;
        Parallel.forRange(c, Parallel.rowGrain(n * l), (from, to) -> {
            double[] sums = new double[2];
            for (int ch = from; ch < to; ch++) {
                float mu = mean.data()[mean.offset() + ch], rs = rstd.data()[rstd.offset() + ch];
                float wc = w == null ? 1f : w[wOff + ch];
                double sumG = 0, sumGx = 0;
                for (int i = 0; i < n; i++) {
                    int r = i * c + ch;
                    rowSums(g.data(), g.start(r), x.data(), x.start(r), l, mu, rs, sums);
                    sumG += sums[0];
                    sumGx += sums[1];
                }
                if (gb != null) gb[ch] = (float) sumG;
                if (gw != null) gw[ch] = (float) sumGx;
                float a = training ? (float) (wc * sumG / m) : 0f, k = training ? (float) (wc * sumGx / m) : 0f;
                for (int i = 0; i < n; i++) {
                    int r = i * c + ch;
                    rowGrad(g.data(), g.start(r), x.data(), x.start(r), l, mu, rs, wc, a, k, gx, r * l);
                }
            }
        });
    }

    /** Group norm: y (N·C·L) and, per (n, group), mean and rstd (N·groups). */
    public static void groupNorm(Rows x, int n, int c, int l, int groups, float[] w, int wOff, float[] b, int bOff,
                                 double eps, float[] y, float[] mean, float[] rstd) {
        float epsF = (float) eps;
        int per = c / groups;
        double m = (double) per * l;
        Parallel.forRange(n * groups, Parallel.rowGrain(per * l), (from, to) -> {
            float[] xd = x.data();
            for (int t = from; t < to; t++) {
                int first = (t / groups) * c + (t % groups) * per; // row of the group's first channel
                double s = 0;
                for (int j = 0; j < per; j++) s += VectorReductions.sum(xd, x.start(first + j), l);
                float mu = (float) (s / m);
                double sq = 0;
                for (int j = 0; j < per; j++) sq += squaredDeviation(xd, x.start(first + j), l, mu);
                float rs = (float) (1.0 / Math.sqrt((float) (sq / m) + epsF));
                mean[t] = mu;
                rstd[t] = rs;
                for (int j = 0; j < per; j++) {
                    int ch = (t % groups) * per + j;
                    normalize(xd, x.start(first + j), l, mu, rs, w == null ? 1f : w[wOff + ch], b == null ? 0f : b[bOff + ch],
                            y, (first + j) * l);
                }
            }
        });
    }

    /**
     * Group norm gradients. Per (n, group) with K = (C/groups)·L values: gx = (g·w[c] − a − xhat·k)·rstd
     * with a = Σ g·w / K and k = Σ g·w·xhat / K over the group; gw and gb sum g·xhat and g over
     * (n, L) per channel, from per-(n, c) partials added in order of n.
     */
    public static void groupNormBackward(Rows g, Rows x, int n, int c, int l, int groups, float[] w, int wOff,
                                         Rows mean, Rows rstd, float[] gx, float[] gw, float[] gb) {
        int per = c / groups;
        double m = (double) per * l;
        double[] gPart = new double[n * c], gxPart = new double[n * c];
        Parallel.forRange(n * groups, Parallel.rowGrain(per * l), (from, to) -> {
            double[] sums = new double[2];
            for (int t = from; t < to; t++) {
                int first = (t / groups) * c + (t % groups) * per;
                float mu = mean.data()[mean.offset() + t], rs = rstd.data()[rstd.offset() + t];
                double sumG = 0, sumGx = 0;
                for (int j = 0; j < per; j++) {
                    int r = first + j;
                    float wc = w == null ? 1f : w[wOff + r % c];
                    rowSums(g.data(), g.start(r), x.data(), x.start(r), l, mu, rs, sums);
                    gPart[r] = sums[0];
                    gxPart[r] = sums[1];
                    sumG += wc * sums[0];
                    sumGx += wc * sums[1];
                }
                float a = (float) (sumG / m), k = (float) (sumGx / m);
                for (int j = 0; j < per; j++) {
                    int r = first + j;
                    rowGrad(g.data(), g.start(r), x.data(), x.start(r), l, mu, rs, w == null ? 1f : w[wOff + r % c], a, k, gx, r * l);
                }
            }
        });
        for (int ch = 0; ch < c; ch++) {
            double sg = 0, sgx = 0;
            for (int i = 0; i < n; i++) {
                sg += gPart[i * c + ch];
                sgx += gxPart[i * c + ch];
            }
            if (gb != null) gb[ch] = (float) sg;
            if (gw != null) gw[ch] = (float) sgx;
        }
    }

    /** Σ (a[i] − mu)² over a[off, off + len), float vector blocks carried in double. */
    private static double squaredDeviation(float[] a, int off, int len, float mu) {
        double total = 0;
        for (int start = 0; start < len; start += VectorReductions.SUM_BLOCK) {
            int end = Math.min(len, start + VectorReductions.SUM_BLOCK), i = start;
            FloatVector s0 = FloatVector.zero(S), s1 = FloatVector.zero(S);
            for (int bd = start + (end - start) - (end - start) % (2 * L); i < bd; i += 2 * L) {
                FloatVector d0 = load(a, off + i).sub(mu), d1 = load(a, off + i + L).sub(mu);
                s0 = d0.fma(d0, s0);
                s1 = d1.fma(d1, s1);
            }
            for (int bd = start + S.loopBound(end - start); i < bd; i += L) {
                FloatVector d = load(a, off + i).sub(mu);
                s0 = d.fma(d, s0);
            }
            float part = VectorReductions.addLanes(s0.add(s1));
            for (; i < end; i++) {
                float d = a[off + i] - mu;
                part += d * d;
            }
            total += part;
        }
        return total;
    }

    /** y[ys, ys + len) = ((x − mu)·rs)·wc + bc. */
    private static void normalize(float[] xd, int xs, int len, float mu, float rs, float wc, float bc, float[] y, int ys) {
        int i = 0;
        for (int bd = S.loopBound(len); i < bd; i += L) load(xd, xs + i).sub(mu).mul(rs).mul(wc).add(bc).intoArray(y, ys + i);
        for (; i < len; i++) y[ys + i] = ((xd[xs + i] - mu) * rs) * wc + bc;
    }

    /** sums = {Σ g, Σ g·xhat} over one row, xhat = (x − mu)·rs. */
    private static void rowSums(float[] gd, int gs, float[] xd, int xs, int len, float mu, float rs, double[] sums) {
        double sumG = 0, sumGx = 0;
        for (int start = 0; start < len; start += VectorReductions.SUM_BLOCK) {
            int end = Math.min(len, start + VectorReductions.SUM_BLOCK), i = start;
            FloatVector sg = FloatVector.zero(S), sgx = FloatVector.zero(S);
            for (int bd = start + S.loopBound(end - start); i < bd; i += L) {
                FloatVector gv = load(gd, gs + i);
                sg = sg.add(gv);
                sgx = gv.fma(load(xd, xs + i).sub(mu).mul(rs), sgx);
            }
            float pg = VectorReductions.addLanes(sg), pgx = VectorReductions.addLanes(sgx);
            for (; i < end; i++) {
                pg += gd[gs + i];
                pgx += gd[gs + i] * ((xd[xs + i] - mu) * rs);
            }
            sumG += pg;
            sumGx += pgx;
        }
        sums[0] = sumG;
        sums[1] = sumGx;
    }

    /** gx[os, os + len) = (g·wc − a − xhat·k)·rs, xhat = (x − mu)·rs. */
    private static void rowGrad(float[] gd, int gs, float[] xd, int xs, int len, float mu, float rs, float wc,
                                float a, float k, float[] gx, int os) {
        int i = 0;
        for (int bd = S.loopBound(len); i < bd; i += L) {
            FloatVector xh = load(xd, xs + i).sub(mu).mul(rs);
            load(gd, gs + i).mul(wc).sub(a).sub(xh.mul(k)).mul(rs).intoArray(gx, os + i);
        }
        for (; i < len; i++) {
            float xh = (xd[xs + i] - mu) * rs;
            gx[os + i] = (gd[gs + i] * wc - a - xh * k) * rs;
        }
    }
}
