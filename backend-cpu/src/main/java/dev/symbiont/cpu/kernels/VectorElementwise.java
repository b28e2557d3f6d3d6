package dev.symbiont.cpu.kernels;

import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/**
 * Elementwise float32 kernels on the Vector API, over contiguous runs of arrays.
 *
 * <p>Each op is one loop over whole vectors with its operator written out as a constant (the
 * Vector API compiles to SIMD only for constant operators); a ragged tail is copied into a
 * vector-sized scratch and run through the same loop, so every element sees the same
 * arithmetic. Work above {@link Parallel#ELEMENT_GRAIN} elements is split over the pool.
 *
 * <p>Numerics follow the reference within a few ulps: sigmoid uses the overflow-free
 * split at 0, and GELU (tanh) is computed as x·sigmoid(2u), which equals
 * 0.5·x·(1 + tanh u) but keeps its precision for x ≪ 0. exp inside sigmoid, softplus,
 * erf and GELU (erf) is {@link VectorMath}'s polynomial; the EXP op itself keeps the
 * Vector API's.
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

    private static final float SQRT_TWO_OVER_PI = 0.7978845608028654f;
    private static final float GELU_TANH_CUBIC = 0.044715f;
    private static final float SOFTPLUS_THRESHOLD = 20f;

    // ---- unary ----------------------------------------------------------------------------------

    /** out[0, n) = op(x[xOff, xOff + n)). */
    public static void unary(UnaryOp op, float[] x, int xOff, float[] out, int n) {
        Parallel.forRange(n, Parallel.ELEMENT_GRAIN, (from, to) -> {
            int len = to - from, body = S.loopBound(len);
            unaryBody(op, x, xOff + from, out, from, body);
            if (body < len) {
                float[] t = new float[L];
                System.arraycopy(x, xOff + from + body, t, 0, len - body);
                unaryBody(op, t, 0, t, 0, L);
                System.arraycopy(t, 0, out, from + body, len - body);
            }
        });
    }

    /** The op over {@code n} elements, n a multiple of the vector length. */
    private static void unaryBody(UnaryOp op, float[] x, int xo, float[] out, int oo, int n) {
        switch (op) {
            case NEG -> { for (int i = 0; i < n; i += L) load(x, xo + i).neg().intoArray(out, oo + i); }
            case ABS -> { for (int i = 0; i < n; i += L) load(x, xo + i).abs().intoArray(out, oo + i); }
            case EXP -> { for (int i = 0; i < n; i += L) load(x, xo + i).lanewise(VectorOperators.EXP).intoArray(out, oo + i); }
            case LOG -> { for (int i = 0; i < n; i += L) load(x, xo + i).lanewise(VectorOperators.LOG).intoArray(out, oo + i); }
            case SQRT -> { for (int i = 0; i < n; i += L) load(x, xo + i).sqrt().intoArray(out, oo + i); }
            case RSQRT -> { for (int i = 0; i < n; i += L) one().div(load(x, xo + i).sqrt()).intoArray(out, oo + i); }
            case TANH -> { for (int i = 0; i < n; i += L) load(x, xo + i).lanewise(VectorOperators.TANH).intoArray(out, oo + i); }
            case SIGMOID -> { for (int i = 0; i < n; i += L) sigmoid(load(x, xo + i)).intoArray(out, oo + i); }
            case RELU -> { for (int i = 0; i < n; i += L) load(x, xo + i).max(0f).intoArray(out, oo + i); }
            case GELU_TANH -> { for (int i = 0; i < n; i += L) geluTanh(load(x, xo + i)).intoArray(out, oo + i); }
            case SILU -> { for (int i = 0; i < n; i += L) { FloatVector v = load(x, xo + i); v.mul(sigmoid(v)).intoArray(out, oo + i); } }
            case SQUARE -> { for (int i = 0; i < n; i += L) { FloatVector v = load(x, xo + i); v.mul(v).intoArray(out, oo + i); } }
            case RECIPROCAL -> { for (int i = 0; i < n; i += L) one().div(load(x, xo + i)).intoArray(out, oo + i); }
            case GELU_ERF -> { for (int i = 0; i < n; i += L) VectorMath.geluErf(load(x, xo + i)).intoArray(out, oo + i); }
            case ERF -> { for (int i = 0; i < n; i += L) VectorMath.erf(load(x, xo + i)).intoArray(out, oo + i); }
            case SOFTPLUS -> { for (int i = 0; i < n; i += L) softplus(load(x, xo + i)).intoArray(out, oo + i); }
            default -> throw new IllegalArgumentException("unary " + op + ": no vector kernel");
        }
    }

    static FloatVector sigmoid(FloatVector v) {
        return VectorMath.sigmoid(v);
    }

    /** x·sigmoid(2u), u = √(2/π)(x + 0.044715x³): the same function as 0.5x(1 + tanh u). */
    static FloatVector geluTanh(FloatVector x) {
        FloatVector u2 = x.mul(x).mul(x).mul(GELU_TANH_CUBIC).add(x).mul(2f * SQRT_TWO_OVER_PI);
        return x.mul(sigmoid(u2));
    }

    /** x above 20 (PyTorch's threshold), else max(x, 0) + log1p(e^−|x|), which equals log1p(eˣ) without overflow. */
    static FloatVector softplus(FloatVector x) {
        FloatVector y = x.max(0f).add(VectorMath.exp(x.abs().neg()).lanewise(VectorOperators.LOG1P));
        return y.blend(x, x.compare(VectorOperators.GT, SOFTPLUS_THRESHOLD));
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
        binaryBody(op, x, xo, y, yo, out, oo, body);
        if (body < n) {
            float[] tx = tails[0], ty = tails[1], to = tails[2];
            System.arraycopy(x, xo + body, tx, 0, n - body);
            System.arraycopy(y, yo + body, ty, 0, n - body);
            binaryBody(op, tx, 0, ty, 0, to, 0, L);
            System.arraycopy(to, 0, out, oo + body, n - body);
        }
    }

    /** The op over {@code n} element pairs, n a multiple of the vector length. */
    private static void binaryBody(BinaryOp op, float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        switch (op) {
            case ADD -> { for (int i = 0; i < n; i += L) load(x, xo + i).add(load(y, yo + i)).intoArray(out, oo + i); }
            case SUB -> { for (int i = 0; i < n; i += L) load(x, xo + i).sub(load(y, yo + i)).intoArray(out, oo + i); }
            case MUL -> { for (int i = 0; i < n; i += L) load(x, xo + i).mul(load(y, yo + i)).intoArray(out, oo + i); }
            case DIV -> { for (int i = 0; i < n; i += L) load(x, xo + i).div(load(y, yo + i)).intoArray(out, oo + i); }
            case MAXIMUM -> { for (int i = 0; i < n; i += L) load(x, xo + i).max(load(y, yo + i)).intoArray(out, oo + i); }
            case MINIMUM -> { for (int i = 0; i < n; i += L) load(x, xo + i).min(load(y, yo + i)).intoArray(out, oo + i); }
            case EQ -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).eq(load(y, yo + i))).intoArray(out, oo + i); }
            case NE -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).eq(load(y, yo + i)).not()).intoArray(out, oo + i); }
            case LT -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).lt(load(y, yo + i))).intoArray(out, oo + i); }
            case LE -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).compare(VectorOperators.LE, load(y, yo + i))).intoArray(out, oo + i); }
            case GT -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).compare(VectorOperators.GT, load(y, yo + i))).intoArray(out, oo + i); }
            case GE -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).compare(VectorOperators.GE, load(y, yo + i))).intoArray(out, oo + i); }
            default -> throw new IllegalArgumentException("binary " + op + ": no vector kernel");
        }
    }

    // ---- helpers --------------------------------------------------------------------------------

    static FloatVector load(float[] a, int offset) {
        return FloatVector.fromArray(S, a, offset);
    }

    static FloatVector one() {
        return FloatVector.broadcast(S, 1f);
    }

    /** 1.0 where the mask is set, 0.0 elsewhere. */
    private static FloatVector bit(VectorMask<Float> m) {
        return FloatVector.zero(S).blend(1f, m);
    }
}
