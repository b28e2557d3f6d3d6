package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;
import static dev.symbiont.cpu.kernels.VectorReductions.load;

/**
 * Layer norm and RMS norm over the rows of x (rows, cols), forward and backward. Each row is
 * one task (statistics, then the normalised row, while it sits in cache); rows spread over the
 * pool. The weight and bias gradients are column sums over rows: each chunk of rows keeps its
 * own partial sums (float for a few rows, then double), added up in chunk order at the end,
 * so results do not depend on thread timing.
 *
 * <p>Arithmetic follows the reference composition op by op: mean = Σx / cols, var = Σ(x − mean)² / cols,
 * rstd = 1/√(var + eps) with eps rounded to float, y = ((x − mean)·rstd)·w + b.
 * Weights, biases and the outputs are contiguous; a null weight or bias is absent.
 */
public final class VectorNorms {
    private VectorNorms() {}

    /** Rows a weight-gradient partial adds in float before flushing into its double totals. */
    private static final int FLUSH = 32;

    /** y (rows·cols), mean and rstd (rows) of layer norm; w and b hold cols values from wOff and bOff. */
    public static void layerNorm(Rows x, int rows, int cols, float[] w, int wOff, float[] b, int bOff, double eps,
                                 float[] y, float[] mean, float[] rstd) {
        float epsF = (float) eps;
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            float[] xd = x.data();
            for (int r = from; r < to; r++) layerNormRow(xd, x.start(r), r, cols, w, wOff, b, bOff, epsF, y, mean, rstd);
        });
    }

    /**
     * Residual add and layer norm: s = x + res (rows·cols), then y, mean and rstd of s as
     * {@link #layerNorm} computes them; each row's sum is normalised while it sits in L1.
     */
    public static void addLayerNorm(Rows x, Rows res, int rows, int cols, float[] w, int wOff, float[] b, int bOff, double eps,
                                    float[] s, float[] y, float[] mean, float[] rstd) {
        float epsF = (float) eps;
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            for (int r = from; r < to; r++) {
                addRow(x, res, r, cols, s);
                layerNormRow(s, r * cols, r, cols, w, wOff, b, bOff, epsF, y, mean, rstd);
            }
        });
    }

    /** Row r of s = x + res, at r·cols. */
    private static void addRow(Rows x, Rows res, int r, int cols, float[] s) {
        float[] xd = x.data(), rd = res.data();
        int xs = x.start(r), rs = res.start(r), ss = r * cols, i = 0;
        for (int bd = S.loopBound(cols); i < bd; i += L) load(xd, xs + i).add(load(rd, rs + i)).intoArray(s, ss + i);
        for (; i < cols; i++) s[ss + i] = xd[xs + i] + rd[rs + i];
    }

    /** Row r of layer norm from xd[xs, xs + cols) into y, mean[r] and rstd[r]. */
    private static void layerNormRow(float[] xd, int xs, int r, int cols, float[] w, int wOff, float[] b, int bOff, float epsF,
                                     float[] y, float[] mean, float[] rstd) {
        int ys = r * cols;
        float mu = VectorReductions.sum(xd, xs, cols) / cols;
        // centred row into y, then its sum of squares
        int i = 0;
        for (int bd = S.loopBound(cols); i < bd; i += L) load(xd, xs + i).sub(mu).intoArray(y, ys + i);
        for (; i < cols; i++) y[ys + i] = xd[xs + i] - mu;
        float var = VectorReductions.dot(y, ys, y, ys, cols) / cols;
        float rs = (float) (1.0 / Math.sqrt(var + epsF));
        mean[r] = mu;
        rstd[r] = rs;
        affine(y, ys, rs, w, wOff, b, bOff, cols);
    }

    /** y (rows·cols) and rstd (rows) of RMS norm; w holds cols values from wOff, or is null. */
    public static void rmsNorm(Rows x, int rows, int cols, float[] w, int wOff, double eps, float[] y, float[] rstd) {
        float epsF = (float) eps;
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            float[] xd = x.data();
            for (int r = from; r < to; r++) rmsNormRow(xd, x.start(r), r, cols, w, wOff, epsF, y, rstd);
        });
    }

    /**
     * Residual add and RMS norm: s = x + res (rows·cols), then y and rstd of s as {@link #rmsNorm}
     * computes them; each row's sum is normalised while it sits in L1.
     */
    public static void addRmsNorm(Rows x, Rows res, int rows, int cols, float[] w, int wOff, double eps,
                                  float[] s, float[] y, float[] rstd) {
        float epsF = (float) eps;
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            for (int r = from; r < to; r++) {
                addRow(x, res, r, cols, s);
                rmsNormRow(s, r * cols, r, cols, w, wOff, epsF, y, rstd);
            }
        });
    }

    /** Row r of RMS norm from xd[xs, xs + cols) into y and rstd[r]. */
    private static void rmsNormRow(float[] xd, int xs, int r, int cols, float[] w, int wOff, float epsF, float[] y, float[] rstd) {
        int ys = r * cols;
        float ms = VectorReductions.dot(xd, xs, xd, xs, cols) / cols;
        float rs = (float) (1.0 / Math.sqrt(ms + epsF));
        rstd[r] = rs;
        System.arraycopy(xd, xs, y, ys, cols);
        affine(y, ys, rs, w, wOff, null, 0, cols);
    }

    /** row = (row·rs)·w + b in place. */
    private static void affine(float[] y, int ys, float rs, float[] w, int wOff, float[] b, int bOff, int cols) {
        int i = 0, bd = S.loopBound(cols);
        if (w != null && b != null) {
            for (; i < bd; i += L) load(y, ys + i).mul(rs).mul(load(w, wOff + i)).add(load(b, bOff + i)).intoArray(y, ys + i);
            for (; i < cols; i++) y[ys + i] = (y[ys + i] * rs) * w[wOff + i] + b[bOff + i];
        } else if (w != null) {
            for (; i < bd; i += L) load(y, ys + i).mul(rs).mul(load(w, wOff + i)).intoArray(y, ys + i);
            for (; i < cols; i++) y[ys + i] = (y[ys + i] * rs) * w[wOff + i];
        } else if (b != null) {
            for (; i < bd; i += L) load(y, ys + i).mul(rs).add(load(b, bOff + i)).intoArray(y, ys + i);
            for (; i < cols; i++) y[ys + i] = y[ys + i] * rs + b[bOff + i];
        } else {
            for (; i < bd; i += L) load(y, ys + i).mul(rs).intoArray(y, ys + i);
            for (; i < cols; i++) y[ys + i] *= rs;
        }
    }

    /**
     * Layer norm gradients of s, for {@link #layerNorm} (gSum null) and {@link #addLayerNorm}.
     * {@code mean} and {@code rstd} give row r's statistics at {@code start(r)} (stride = their
     * row stride). gx is (rows·cols): layer norm's input gradient from g, plus gSum (the gradient
     * the sum received elsewhere) when given, added while the row is in L1, so s's two gradients
     * are never summed in a pass of their own. gw and gb (cols) are filled when non-null.
     */
    public static void addLayerNormBackward(Rows g, Rows gSum, Rows s, int rows, int cols, float[] w, int wOff,
                                            Rows mean, Rows rstd, float[] gx, float[] gw, float[] gb) {
        backward(g, s, rows, cols, w, wOff, mean, rstd, gSum, gx, gw, gb);
    }

    /**
     * RMS norm gradients of s, for {@link #rmsNorm} (gSum null) and {@link #addRmsNorm}: as
     * {@link #addLayerNormBackward} with a zero mean and no bias.
     */
    public static void addRmsNormBackward(Rows g, Rows gSum, Rows s, int rows, int cols, float[] w, int wOff,
                                          Rows rstd, float[] gx, float[] gw) {
        backward(g, s, rows, cols, w, wOff, null, rstd, gSum, gx, gw, null);
    }

    /**
     * Per row: xhat = (x − mean)·rstd, gxhat = g·w,
     * gx = (gxhat − [mean(gxhat)] − xhat·mean(gxhat·xhat))·rstd, the bracket only for layer norm;
     * gw += g·xhat, gb += g; then gx += gAdd when gAdd is given. Two passes over the row ({@link #rowSums},
     * then {@link #rowGrad}, or {@link #rowGradPlus} with gAdd), each a method of its own so C2 compiles
     * it whole (see {@link ElementLoops} on its node budget).
     */
    private static void backward(Rows g, Rows x, int rows, int cols, float[] w, int wOff, Rows mean, Rows rstd,
                                 Rows gAdd, float[] gx, float[] gw, float[] gb) {
        int grain = Parallel.rowGrain(cols), chunks = Parallel.chunks(rows, grain);
        double[][] gwTotals = gw == null ? null : new double[chunks][cols];
        double[][] gbTotals = gb == null ? null : new double[chunks][cols];
        Parallel.forChunks(rows, grain, (chunk, from, to) -> {
            float[] gwPart = gw == null ? null : new float[cols], gbPart = gb == null ? null : new float[cols];
            float[] sums = new float[2];
            for (int r = from; r < to; r++) {
                float mu = mean == null ? 0f : mean.data()[mean.start(r)];
                float rs = rstd.data()[rstd.start(r)];
                rowSums(g.data(), g.start(r), x.data(), x.start(r), cols, w, wOff, mu, rs, gwPart, gbPart, sums);
                float a = mean == null ? 0f : sums[0] / cols, c = sums[1] / cols;
                if (gAdd == null) rowGrad(g.data(), g.start(r), x.data(), x.start(r), cols, w, wOff, mu, rs, a, c, gx, r * cols);
                else rowGradPlus(g.data(), g.start(r), x.data(), x.start(r), cols, w, wOff, mu, rs, a, c, gAdd.data(), gAdd.start(r), gx, r * cols);
                if ((r - from + 1) % FLUSH == 0 || r == to - 1) {
                    if (gwPart != null) flush(gwPart, gwTotals[chunk]);
                    if (gbPart != null) flush(gbPart, gbTotals[chunk]);
                }
            }
        });
        if (gw != null) combine(gwTotals, gw);
        if (gb != null) combine(gbTotals, gb);
    }

    /**
     * sums = {Σ gxhat, Σ gxhat·xhat} over one row (float vectors, each block of
     * {@link VectorReductions#SUM_BLOCK} handed to a double), and gwPart += g·xhat, gbPart += g
     * (either may be null). w null means gxhat = g.
     */
    private static void rowSums(float[] gd, int gs, float[] xd, int xs, int cols, float[] w, int wOff, float mu, float rs,
                                float[] gwPart, float[] gbPart, float[] sums) {
        double sumG = 0, sumGx = 0;
        for (int start = 0; start < cols; start += VectorReductions.SUM_BLOCK) {
            int end = Math.min(cols, start + VectorReductions.SUM_BLOCK), i = start;
            FloatVector sg = FloatVector.zero(S), sgx = FloatVector.zero(S);
            for (int bd = start + S.loopBound(end - start); i < bd; i += L) {
                FloatVector gv = FloatVector.fromArray(S, gd, gs + i);
                FloatVector xh = FloatVector.fromArray(S, xd, xs + i).sub(mu).mul(rs);
                FloatVector gh = w == null ? gv : gv.mul(FloatVector.fromArray(S, w, wOff + i));
                sg = sg.add(gh);
                sgx = gh.fma(xh, sgx);
                if (gwPart != null) gv.fma(xh, FloatVector.fromArray(S, gwPart, i)).intoArray(gwPart, i);
                if (gbPart != null) gv.add(FloatVector.fromArray(S, gbPart, i)).intoArray(gbPart, i);
            }
            float pg = VectorReductions.addLanes(sg), pgx = VectorReductions.addLanes(sgx);
            for (; i < end; i++) {
                float gv = gd[gs + i], xh = (xd[xs + i] - mu) * rs, gh = w == null ? gv : gv * w[wOff + i];
                pg += gh;
                pgx += gh * xh;
                if (gwPart != null) gwPart[i] += gv * xh;
                if (gbPart != null) gbPart[i] += gv;
            }
            sumG += pg;
            sumGx += pgx;
        }
        sums[0] = (float) sumG;
        sums[1] = (float) sumGx;
    }

    /** gx[os, os + cols) = (g·w − a − xhat·c)·rs, with xhat = (x − mu)·rs recomputed. */
    private static void rowGrad(float[] gd, int gs, float[] xd, int xs, int cols, float[] w, int wOff, float mu, float rs,
                                float a, float c, float[] gx, int os) {
        int i = 0;
        for (int bd = S.loopBound(cols); i < bd; i += L) {
            FloatVector gv = FloatVector.fromArray(S, gd, gs + i);
            FloatVector xh = FloatVector.fromArray(S, xd, xs + i).sub(mu).mul(rs);
            FloatVector gh = w == null ? gv : gv.mul(FloatVector.fromArray(S, w, wOff + i));
            gh.sub(a).sub(xh.mul(c)).mul(rs).intoArray(gx, os + i);
        }
        for (; i < cols; i++) {
            float xh = (xd[xs + i] - mu) * rs, gh = w == null ? gd[gs + i] : gd[gs + i] * w[wOff + i];
            gx[os + i] = (gh - a - xh * c) * rs;
        }
    }

    /** {@link #rowGrad} plus the residual's gradient in the same pass: gx = gAdd + (g·w − a − xhat·c)·rs, as adding it after. */
    private static void rowGradPlus(float[] gd, int gs, float[] xd, int xs, int cols, float[] w, int wOff, float mu, float rs,
                                    float a, float c, float[] ad, int as, float[] gx, int os) {
        int i = 0;
        for (int bd = S.loopBound(cols); i < bd; i += L) {
            FloatVector gv = FloatVector.fromArray(S, gd, gs + i);
            FloatVector xh = FloatVector.fromArray(S, xd, xs + i).sub(mu).mul(rs);
            FloatVector gh = w == null ? gv : gv.mul(FloatVector.fromArray(S, w, wOff + i));
            load(ad, as + i).add(gh.sub(a).sub(xh.mul(c)).mul(rs)).intoArray(gx, os + i);
        }
        for (; i < cols; i++) {
            float xh = (xd[xs + i] - mu) * rs, gh = w == null ? gd[gs + i] : gd[gs + i] * w[wOff + i];
            gx[os + i] = ad[as + i] + (gh - a - xh * c) * rs;
        }
    }

    private static void flush(float[] part, double[] total) {
        for (int j = 0; j < part.length; j++) {
            total[j] += part[j];
            part[j] = 0f;
        }
    }

    private static void combine(double[][] totals, float[] out) {
        for (int j = 0; j < out.length; j++) {
            double s = 0;
            for (double[] t : totals) s += t[j];
            out[j] = (float) s;
        }
    }
}
