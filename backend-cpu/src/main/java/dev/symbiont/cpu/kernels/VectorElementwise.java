package dev.symbiont.cpu.kernels;

import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * Elementwise float32 kernels on the Vector API, over contiguous runs of arrays.
 *
 * <p>Each op is one loop over whole vectors in {@link ElementLoops}, its operator written out as
 * a constant (the Vector API compiles to SIMD only for constant operators); a ragged tail is
 * copied into a vector-sized scratch and run through the same loop, so every element sees the
 * same arithmetic. Work above {@link Parallel#ELEMENT_GRAIN} elements is split over the pool.
 *
 * <p>Numerics follow the reference within a few ulps: sigmoid uses the overflow-free
 * split at 0, and GELU (tanh) is computed as x·sigmoid(2u), which equals
 * 0.5·x·(1 + tanh u) but keeps its precision for x ≪ 0. Every transcendental — exp (the EXP
 * op and inside sigmoid, SiLU, softplus, erf and GELU), LOG, TANH and softplus's log1p — is
 * {@link VectorMath}'s polynomial, which gives the same bits compiled or interpreted; the
 * Vector API's own operators do not.
 */
public final class VectorElementwise {
    private VectorElementwise() {}

    /** Unary ops with a vector kernel; the rest stay on the reference. */
    public static final Set<UnaryOp> UNARY = EnumSet.of(UnaryOp.NEG, UnaryOp.ABS, UnaryOp.EXP, UnaryOp.LOG,
            UnaryOp.SQRT, UnaryOp.RSQRT, UnaryOp.TANH, UnaryOp.SIGMOID, UnaryOp.RELU, UnaryOp.GELU_TANH,
            UnaryOp.SILU, UnaryOp.SQUARE, UnaryOp.RECIPROCAL, UnaryOp.GELU_ERF, UnaryOp.ERF, UnaryOp.SOFTPLUS);

    /** Binary ops with a vector kernel (everything but POW). */
    public static final Set<BinaryOp> BINARY = EnumSet.complementOf(EnumSet.of(BinaryOp.POW));

    /** Longest constant run expanded into scratch at once by the broadcast driver. */
    private static final int BLOCK = 1024;

    // ---- unary ----------------------------------------------------------------------------------

    /** out[0, n) = op(x[xOff, xOff + n)). */
    public static void unary(UnaryOp op, float[] x, int xOff, float[] out, int n) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int len = to - from, body = S.loopBound(len);
            ElementLoops.unary(op, x, xOff + from, out, from, body);
            if (body < len) {
                float[] t = new float[L];
                System.arraycopy(x, xOff + from + body, t, 0, len - body);
                ElementLoops.unary(op, t, 0, t, 0, L);
                System.arraycopy(t, 0, out, from + body, len - body);
            }
        });
    }

    // ---- binary ---------------------------------------------------------------------------------

    /**
     * out[i] = op(a at pa(i), b at pb(i)) for i in [0, n): the operands are walked in runs
     * that are either consecutive in their array or one repeated element (expanded into
     * scratch a block at a time), and each run goes through the vector loop.
     */
    public static void binary(BinaryOp op, float[] a, Broadcast pa, float[] b, Broadcast pb, float[] out, int n) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            float[] sa = pa.constantRun() ? new float[BLOCK] : null;
            float[] sb = pb.constantRun() ? new float[BLOCK] : null;
            float[][] tails = new float[3][L];
            for (int i = from; i < to; ) {
                int len = Math.min(pa.run(i, to - i), pb.run(i, to - i));
                if (sa != null || sb != null) len = Math.min(len, BLOCK);
                float[] x = a, y = b;
                int xo = pa.index(i), yo = pb.index(i);
                if (sa != null) { Arrays.fill(sa, 0, len, a[xo]); x = sa; xo = 0; }
                if (sb != null) { Arrays.fill(sb, 0, len, b[yo]); y = sb; yo = 0; }
                binaryRun(op, x, xo, y, yo, out, i, len, tails);
                i += len;
            }
        });
    }

    private static void binaryRun(BinaryOp op, float[] x, int xo, float[] y, int yo, float[] out, int oo, int n,
                                  float[][] tails) {
        int body = S.loopBound(n);
        ElementLoops.binary(op, x, xo, y, yo, out, oo, body);
        if (body < n) {
            float[] tx = tails[0], ty = tails[1], to = tails[2];
            System.arraycopy(x, xo + body, tx, 0, n - body);
            System.arraycopy(y, yo + body, ty, 0, n - body);
            ElementLoops.binary(op, tx, 0, ty, 0, to, 0, L);
            System.arraycopy(to, 0, out, oo + body, n - body);
        }
    }
}
