package dev.symbiont.cpu.kernels;

import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;
import static dev.symbiont.cpu.kernels.VectorMath.ONE;
import static dev.symbiont.cpu.kernels.VectorMath.ZERO;

/**
 * The vector loop of each elementwise op, one method per op, over {@code n} elements (a
 * multiple of the vector length). {@link VectorElementwise} drives them (threads, tails,
 * broadcast runs).
 *
 * <p>One method per op is deliberate: C2 compiles a method and what it inlines against one
 * node budget. With every op's loop in one switch, the ops that ran first used it up, later
 * vector calls stopped inlining, and each of their vectors was boxed on the heap — GELU
 * allocated 8× its output and ran ~4× slower. A call that does not inline here passes
 * arrays, not vectors, so it costs a call and no boxes.
 */
final class ElementLoops {
    private ElementLoops() {}

    private static final FloatVector SOFTPLUS_THRESHOLD = FloatVector.broadcast(S, 20f); // PyTorch's default

    static void unary(UnaryOp op, float[] x, int xo, float[] out, int oo, int n) {
        switch (op) {
            case NEG -> neg(x, xo, out, oo, n);
            case ABS -> abs(x, xo, out, oo, n);
            case EXP -> exp(x, xo, out, oo, n);
            case LOG -> log(x, xo, out, oo, n);
            case SQRT -> sqrt(x, xo, out, oo, n);
            case RSQRT -> rsqrt(x, xo, out, oo, n);
            case TANH -> tanh(x, xo, out, oo, n);
            case SIGMOID -> sigmoid(x, xo, out, oo, n);
            case RELU -> relu(x, xo, out, oo, n);
            case GELU_TANH -> geluTanh(x, xo, out, oo, n);
            case GELU_ERF -> geluErf(x, xo, out, oo, n);
            case ERF -> erf(x, xo, out, oo, n);
            case SILU -> silu(x, xo, out, oo, n);
            case SOFTPLUS -> softplus(x, xo, out, oo, n);
            case SQUARE -> square(x, xo, out, oo, n);
            case RECIPROCAL -> reciprocal(x, xo, out, oo, n);
            default -> throw new IllegalArgumentException("unary " + op + ": no vector kernel");
        }
    }

    private static void neg(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).neg().intoArray(out, oo + i);
    }

    private static void abs(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).abs().intoArray(out, oo + i);
    }

    private static void exp(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) VectorMath.exp(load(x, xo + i)).intoArray(out, oo + i);
    }

    private static void log(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) VectorMath.log(load(x, xo + i)).intoArray(out, oo + i);
    }

    private static void sqrt(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).sqrt().intoArray(out, oo + i);
    }

    private static void rsqrt(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) ONE.div(load(x, xo + i).sqrt()).intoArray(out, oo + i);
    }

    private static void tanh(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) VectorMath.tanh(load(x, xo + i)).intoArray(out, oo + i);
    }

    private static void sigmoid(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) VectorMath.sigmoid(load(x, xo + i)).intoArray(out, oo + i);
    }

    private static void relu(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).max(ZERO).intoArray(out, oo + i);
    }

    private static void geluTanh(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) VectorMath.geluTanh(load(x, xo + i)).intoArray(out, oo + i);
    }

    private static void geluErf(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) VectorMath.geluErf(load(x, xo + i)).intoArray(out, oo + i);
    }

    private static void erf(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) VectorMath.erf(load(x, xo + i)).intoArray(out, oo + i);
    }

    private static void silu(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) {
            FloatVector v = load(x, xo + i);
            v.mul(VectorMath.sigmoid(v)).intoArray(out, oo + i);
        }
    }

    /** x above 20, else max(x, 0) + log1p(e^−|x|), which equals log1p(eˣ) without overflow. */
    private static void softplus(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) {
            FloatVector v = load(x, xo + i);
            FloatVector y = v.max(ZERO).add(VectorMath.log1p(VectorMath.exp(v.abs().neg())));
            y.blend(v, v.compare(VectorOperators.GT, SOFTPLUS_THRESHOLD)).intoArray(out, oo + i);
        }
    }

    private static void square(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) {
            FloatVector v = load(x, xo + i);
            v.mul(v).intoArray(out, oo + i);
        }
    }

    private static void reciprocal(float[] x, int xo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) ONE.div(load(x, xo + i)).intoArray(out, oo + i);
    }

    // ---- binary ---------------------------------------------------------------------------------

    static void binary(BinaryOp op, float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        switch (op) {
            case ADD -> add(x, xo, y, yo, out, oo, n);
            case SUB -> sub(x, xo, y, yo, out, oo, n);
            case MUL -> mul(x, xo, y, yo, out, oo, n);
            case DIV -> div(x, xo, y, yo, out, oo, n);
            case MAXIMUM -> max(x, xo, y, yo, out, oo, n);
            case MINIMUM -> min(x, xo, y, yo, out, oo, n);
            case EQ, NE, LT, LE, GT, GE -> compare(op, x, xo, y, yo, out, oo, n);
            default -> throw new IllegalArgumentException("binary " + op + ": no vector kernel");
        }
    }

    private static void add(float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).add(load(y, yo + i)).intoArray(out, oo + i);
    }

    private static void sub(float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).sub(load(y, yo + i)).intoArray(out, oo + i);
    }

    private static void mul(float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).mul(load(y, yo + i)).intoArray(out, oo + i);
    }

    private static void div(float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).div(load(y, yo + i)).intoArray(out, oo + i);
    }

    private static void max(float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).max(load(y, yo + i)).intoArray(out, oo + i);
    }

    private static void min(float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        for (int i = 0; i < n; i += L) load(x, xo + i).min(load(y, yo + i)).intoArray(out, oo + i);
    }

    /** 1.0 where the comparison holds, 0.0 elsewhere (NaN compares false, except NE). */
    private static void compare(BinaryOp op, float[] x, int xo, float[] y, int yo, float[] out, int oo, int n) {
        switch (op) {
            case EQ -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).eq(load(y, yo + i))).intoArray(out, oo + i); }
            case NE -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).eq(load(y, yo + i)).not()).intoArray(out, oo + i); }
            case LT -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).lt(load(y, yo + i))).intoArray(out, oo + i); }
            case LE -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).compare(VectorOperators.LE, load(y, yo + i))).intoArray(out, oo + i); }
            case GT -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).compare(VectorOperators.GT, load(y, yo + i))).intoArray(out, oo + i); }
            case GE -> { for (int i = 0; i < n; i += L) bit(load(x, xo + i).compare(VectorOperators.GE, load(y, yo + i))).intoArray(out, oo + i); }
            default -> throw new IllegalArgumentException("binary " + op + ": not a comparison");
        }
    }

    private static FloatVector bit(VectorMask<Float> m) {
        return ZERO.blend(ONE, m);
    }

    private static FloatVector load(float[] a, int offset) {
        return FloatVector.fromArray(S, a, offset);
    }
}
