package dev.symbiont.cpu.kernels;

import dev.symbiont.core.backend.UnaryOp;
import jdk.incubator.vector.FloatVector;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * Activation gradients in one pass: out = g·f'(x) over contiguous x and g, with f' from
 * {@link VectorMath} (one exponential per element). Replaces the reference's chain of
 * elementwise ops (for GELU erf: erf, exp, and six multiplies and adds, each a full pass
 * that allocates). A ragged tail runs through the same vector code from scratch; work above
 * {@link Parallel#ELEMENT_GRAIN} elements is split over the pool.
 */
public final class VectorActivationGrads {
    private VectorActivationGrads() {}

    /** out[0, n) = g[gOff + i]·op'(x[xOff + i]) for op GELU_ERF, GELU_TANH or SILU. */
    public static void backward(UnaryOp op, float[] x, int xOff, float[] g, int gOff, float[] out, int n) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int len = to - from, body = S.loopBound(len);
            run(op, x, xOff + from, g, gOff + from, out, from, body);
            if (body < len) {
                int rest = len - body;
                float[] tx = new float[L], tg = new float[L], tout = new float[L];
                System.arraycopy(x, xOff + from + body, tx, 0, rest);
                System.arraycopy(g, gOff + from + body, tg, 0, rest);
                run(op, tx, 0, tg, 0, tout, 0, L);
                System.arraycopy(tout, 0, out, from + body, rest);
            }
        });
    }

    /**
     * y[yOff + i] = GELU(x[xOff + i]) (erf form) and d[i] = GELU′(x[xOff + i]) for i in [0, n), in
     * one pass that shares the erfc and the exponential; bit-equal to the GELU primitive and to
     * {@link #backward} with a gradient of ones. y may be x itself (same offset): each vector is
     * read before it is written.
     */
    public static void geluErfWithGrad(float[] x, int xOff, float[] y, int yOff, float[] d, int n) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int len = to - from, body = S.loopBound(len);
            for (int i = from; i < from + body; i += L) {
                VectorMath.geluErfAndGrad(FloatVector.fromArray(S, x, xOff + i), y, d, yOff + i, i);
            }
            if (body < len) {
                int rest = len - body;
                float[] tx = new float[L], ty = new float[L], td = new float[L];
                System.arraycopy(x, xOff + from + body, tx, 0, rest);
                VectorMath.geluErfAndGrad(FloatVector.fromArray(S, tx, 0), ty, td, 0, 0);
                System.arraycopy(ty, 0, y, yOff + from + body, rest);
                System.arraycopy(td, 0, d, from + body, rest);
            }
        });
    }

    /**
     * The op over {@code n} elements, n a multiple of the vector length: one method per op,
     * loads first and the Vector API called directly (see {@link ElementLoops} on C2's node budget).
     */
    private static void run(UnaryOp op, float[] x, int xo, float[] g, int go, float[] out, int oo, int n) {
        switch (op) {
            case GELU_ERF -> geluErf(x, xo, g, go, out, oo, n);
            case GELU_TANH -> geluTanh(x, xo, g, go, out, oo, n);
            case SILU -> silu(x, xo, g, go, out, oo, n);
            default -> throw new IllegalArgumentException(op + " backward: no fused kernel");
        }
    }

    private static void geluErf(float[] x, int xo, float[] g, int go, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) {
            FloatVector gv = FloatVector.fromArray(S, g, go + i);
            VectorMath.geluErfGrad(FloatVector.fromArray(S, x, xo + i)).mul(gv).intoArray(out, oo + i);
        }
    }

    private static void geluTanh(float[] x, int xo, float[] g, int go, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) {
            FloatVector gv = FloatVector.fromArray(S, g, go + i);
            VectorMath.geluTanhGrad(FloatVector.fromArray(S, x, xo + i)).mul(gv).intoArray(out, oo + i);
        }
    }

    private static void silu(float[] x, int xo, float[] g, int go, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) {
            FloatVector gv = FloatVector.fromArray(S, g, go + i);
            VectorMath.siluGrad(FloatVector.fromArray(S, x, xo + i)).mul(gv).intoArray(out, oo + i);
        }
    }
}
