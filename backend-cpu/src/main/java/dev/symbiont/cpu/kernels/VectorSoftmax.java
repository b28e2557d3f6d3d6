package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;
import static dev.symbiont.cpu.kernels.VectorReductions.load;

/**
 * softmax and log_softmax along the last dim, forward and backward, one row at a time (a max
 * pass, an exp-and-sum pass, a scale pass; the row stays in cache), rows spread over the pool.
 * Outputs are contiguous (rows, cols). exp is {@link VectorMath#exp} and lane sums
 * {@link VectorReductions#addLanes}: both give the same bits compiled or interpreted.
 */
public final class VectorSoftmax {
    private VectorSoftmax() {}

    /** out = exp(x − max) / Σ exp(x − max), per row. */
    public static void softmax(Rows x, int rows, int cols, float[] out) {
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            for (int r = from; r < to; r++) {
                int xs = x.start(r), os = r * cols;
                float m = VectorReductions.max(x.data(), xs, cols);
                float sum = expShifted(x.data(), xs, m, out, os, cols);
                scale(out, os, 1f / sum, cols);
            }
        });
    }

    /** out = (x − max) − log Σ exp(x − max), per row. */
    public static void logSoftmax(Rows x, int rows, int cols, float[] out) {
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            for (int r = from; r < to; r++) {
                int xs = x.start(r), os = r * cols;
                float[] xd = x.data();
                float m = VectorReductions.max(xd, xs, cols);
                float sum = expShifted(xd, xs, m, out, os, cols); // out is scratch here
                float logSum = (float) Math.log(sum);
                int i = 0;
                for (int b = S.loopBound(cols); i < b; i += L) load(xd, xs + i).sub(m).sub(logSum).intoArray(out, os + i);
                for (; i < cols; i++) out[os + i] = (xd[xs + i] - m) - logSum;
            }
        });
    }

    /** Softmax gradient from its output: gx = y · (g − Σ g·y), per row. */
    public static void softmaxBackward(Rows y, Rows g, int rows, int cols, float[] out) {
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            float[] yd = y.data(), gd = g.data();
            for (int r = from; r < to; r++) {
                int ys = y.start(r), gs = g.start(r), os = r * cols;
                float d = VectorReductions.dot(gd, gs, yd, ys, cols);
                int i = 0;
                for (int b = S.loopBound(cols); i < b; i += L) load(yd, ys + i).mul(load(gd, gs + i).sub(d)).intoArray(out, os + i);
                for (; i < cols; i++) out[os + i] = yd[ys + i] * (gd[gs + i] - d);
            }
        });
    }

    /** log_softmax gradient from its output: gx = g − exp(y) · Σ g, per row. */
    public static void logSoftmaxBackward(Rows y, Rows g, int rows, int cols, float[] out) {
        Parallel.forRange(rows, Parallel.rowGrain(cols), (from, to) -> {
            float[] yd = y.data(), gd = g.data();
            for (int r = from; r < to; r++) {
                int ys = y.start(r), gs = g.start(r), os = r * cols;
                float s = VectorReductions.sum(gd, gs, cols);
                int i = 0;
                for (int b = S.loopBound(cols); i < b; i += L) {
                    FloatVector e = VectorMath.exp(load(yd, ys + i));
                    load(gd, gs + i).sub(e.mul(s)).intoArray(out, os + i);
                }
                for (; i < cols; i++) out[os + i] = gd[gs + i] - (float) Math.exp(yd[ys + i]) * s;
            }
        });
    }

    /** out[os + i] = exp(x[xs + i] − m); returns their sum. */
    private static float expShifted(float[] x, int xs, float m, float[] out, int os, int n) {
        double total = 0;
        for (int start = 0; start < n; start += VectorReductions.SUM_BLOCK) {
            int len = Math.min(VectorReductions.SUM_BLOCK, n - start), i = 0;
            int xb = xs + start, ob = os + start;
            // one exp per iteration: it is long enough to hide the add's latency, and a second
            // inlined copy would push this method past C2's node budget (boxed vectors)
            FloatVector s0 = FloatVector.zero(S);
            for (int b1 = S.loopBound(len); i < b1; i += L) {
                FloatVector e = VectorMath.exp(load(x, xb + i).sub(m));
                e.intoArray(out, ob + i);
                s0 = s0.add(e);
            }
            float part = VectorReductions.addLanes(s0);
            for (; i < len; i++) {
                float e = (float) Math.exp(x[xb + i] - m);
                out[ob + i] = e;
                part += e;
            }
            total += part;
        }
        return (float) total;
    }

    private static void scale(float[] a, int off, float factor, int n) {
        int i = 0;
        for (int b = S.loopBound(n); i < b; i += L) load(a, off + i).mul(factor).intoArray(a, off + i);
        for (; i < n; i++) a[off + i] *= factor;
    }
}
