package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;
import static dev.symbiont.cpu.kernels.VectorMath.ONE;
import static dev.symbiont.cpu.kernels.VectorMath.ZERO;

/**
 * SwiGLU's gate h = silu(a) ⊙ b and its backward, one pass each over contiguous arrays. The
 * composition it replaces (SiLU, a product, then the product's and SiLU's backward) makes four
 * passes and two temporaries of h's size; here forward reads a and b and writes h, backward
 * reads g, a and b and writes both gradients from one exponential per element.
 *
 * <p>{@code vector} false runs the scalar twin (the backend without the Vector API, and the
 * tests' comparison). Forward's vector loop computes (a·sigmoid(a))·b as the SiLU primitive
 * and the product do, so the two agree bit for bit; work above {@link Parallel#ELEMENT_GRAIN}
 * elements is split over the pool.
 */
public final class SwigluKernel {
    private SwigluKernel() {}

    /** h[i] = silu(a[ao + i]) · b[bo + i] for i in [0, n). */
    public static void forward(boolean vector, float[] a, int ao, float[] b, int bo, float[] h, int n) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int i = from;
            if (vector) {
                for (int end = from + S.loopBound(to - from); i < end; i += L) {
                    gate(FloatVector.fromArray(S, a, ao + i), FloatVector.fromArray(S, b, bo + i)).intoArray(h, i);
                }
            }
            for (; i < to; i++) h[i] = gate(a[ao + i], b[bo + i]);
        });
    }

    /**
     * The gate of one tile of a dual product, still in cache: h[hAt + r·ldh + j] = silu(a)·b with
     * a = tile[r·stride + j] and b = tile[r·stride + pair + j], for r &lt; rows, j &lt; cols. A row of
     * a whole vector is the vector loop's formula, so the values are {@link #forward}'s.
     */
    public static void tile(boolean vector, float[] tile, int stride, int pair, int rows, int cols, float[] h, int hAt, int ldh) {
        for (int r = 0; r < rows; r++) {
            int t = r * stride, o = hAt + r * ldh;
            if (vector && cols == L) {
                gate(FloatVector.fromArray(S, tile, t), FloatVector.fromArray(S, tile, t + pair)).intoArray(h, o);
            } else {
                for (int j = 0; j < cols; j++) h[o + j] = gate(tile[t + j], tile[t + pair + j]);
            }
        }
    }

    /** silu(x) · up, L lanes: the one formula of the vector loops. */
    private static FloatVector gate(FloatVector x, FloatVector up) {
        return x.mul(VectorMath.sigmoid(x)).mul(up);
    }

    /** silu(x) · up: the scalar twin. */
    private static float gate(float x, float up) {
        return x * sigmoid(x) * up;
    }

    /**
     * da[i] = g·b·silu′(a) and db[i] = g·silu(a) at element i in [0, n) of g, a and b, with
     * silu′(x) = s·(1 + x(1 − s)), s = sigmoid(x).
     */
    public static void backward(boolean vector, float[] g, int go, float[] a, int ao, float[] b, int bo,
                                float[] da, float[] db, int n) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int i = from;
            if (vector) {
                for (int end = from + S.loopBound(to - from); i < end; i += L) {
                    FloatVector x = FloatVector.fromArray(S, a, ao + i), gv = FloatVector.fromArray(S, g, go + i);
                    FloatVector e = VectorMath.exp(x.abs().neg());
                    FloatVector r = ONE.div(e.add(ONE)), er = e.mul(r);
                    VectorMask<Float> neg = x.lt(ZERO);
                    FloatVector s = r.blend(er, neg), oneMinusS = er.blend(r, neg);
                    gv.mul(x.mul(s)).intoArray(db, i);
                    s.mul(x.mul(oneMinusS).add(ONE)).mul(gv.mul(FloatVector.fromArray(S, b, bo + i))).intoArray(da, i);
                }
            }
            for (; i < to; i++) {
                float x = a[ao + i], s = sigmoid(x), gi = g[go + i];
                db[i] = gi * (x * s);
                da[i] = s * (x * (1 - s) + 1) * (gi * b[bo + i]);
            }
        });
    }

    /** 1/(1+e^−x) without overflow: e^−|x| is at most 1. */
    private static float sigmoid(float x) {
        float e = (float) Math.exp(-Math.abs(x));
        return x >= 0 ? 1 / (1 + e) : e / (1 + e);
    }
}
