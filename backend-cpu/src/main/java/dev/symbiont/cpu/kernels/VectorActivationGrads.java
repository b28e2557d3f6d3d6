package dev.symbiont.cpu.kernels;

import dev.symbiont.core.backend.UnaryOp;
import jdk.incubator.vector.FloatVector;

import java.util.EnumSet;
import java.util.Set;

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

    /** Activations with a fused gradient kernel. */
    public static final Set<UnaryOp> OPS = EnumSet.of(UnaryOp.GELU_ERF, UnaryOp.GELU_TANH, UnaryOp.SILU);

    /** out[0, n) = g[gOff + i]·op'(x[xOff + i]). */
    public static void backward(UnaryOp op, float[] x, int xOff, float[] g, int gOff, float[] out, int n) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int len = to - from, body = S.loopBound(len);
            run(op, x, xOff + from, g, gOff + from, out, from, body);
            if (body < len) {
                int rest = len - body;
                float[] tx = new float[L], tg = new float[L], to2 = new float[L];
                System.arraycopy(x, xOff + from + body, tx, 0, rest);
                System.arraycopy(g, gOff + from + body, tg, 0, rest);
                run(op, tx, 0, tg, 0, to2, 0, L);
                System.arraycopy(to2, 0, out, from + body, rest);
            }
        });
    }

    /** The op over {@code n} elements, n a multiple of the vector length. */
    private static void run(UnaryOp op, float[] x, int xo, float[] g, int go, float[] out, int oo, int n) {
        switch (op) {
            case GELU_ERF -> { for (int i = 0; i < n; i += L) VectorMath.geluErfGrad(load(x, xo + i)).mul(load(g, go + i)).intoArray(out, oo + i); }
            case GELU_TANH -> { for (int i = 0; i < n; i += L) VectorMath.geluTanhGrad(load(x, xo + i)).mul(load(g, go + i)).intoArray(out, oo + i); }
            case SILU -> { for (int i = 0; i < n; i += L) VectorMath.siluGrad(load(x, xo + i)).mul(load(g, go + i)).intoArray(out, oo + i); }
            default -> throw new IllegalArgumentException(op + " backward: no fused kernel");
        }
    }

    private static FloatVector load(float[] a, int offset) {
        return FloatVector.fromArray(S, a, offset);
    }
}
