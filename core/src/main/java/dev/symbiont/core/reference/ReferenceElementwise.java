package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;

/**
 * Elementwise float32 kernels: one scalar function per op, applied over strided operands in
 * row-major order into a fresh contiguous array. Transcendentals are evaluated in double
 * and rounded once to float.
 */
final class ReferenceElementwise {
    private ReferenceElementwise() {}

    private static final double SQRT_HALF = 0.7071067811865476;     // 1/√2
    private static final double SQRT_TWO_OVER_PI = 0.7978845608028654; // √(2/π)
    private static final double GELU_TANH_CUBIC = 0.044715;
    private static final double SOFTPLUS_THRESHOLD = 20.0;           // PyTorch's default

    /** The op applied to one value (PyTorch semantics). */
    static float apply(UnaryOp op, float x) {
        return switch (op) {
            case NEG -> -x;
            case ABS -> Math.abs(x);
            case EXP -> (float) Math.exp(x);
            case LOG -> (float) Math.log(x);
            case SQRT -> (float) Math.sqrt(x);
            case RSQRT -> (float) (1.0 / Math.sqrt(x));
            case TANH -> (float) Math.tanh(x);
            case SIGMOID -> (float) sigmoid(x);
            case RELU -> Float.isNaN(x) ? x : Math.max(x, 0f);
            // 0.5 x (1 + erf(x/√2)) = 0.5 x erfc(−x/√2); the erfc form keeps precision for x ≪ 0.
            case GELU_ERF -> (float) (0.5 * x * SpecialFunctions.erfc(-x * SQRT_HALF));
            // 0.5 x (1 + tanh u) = x sigmoid(2u); the sigmoid form keeps precision for x ≪ 0.
            case GELU_TANH -> (float) (x * sigmoid(2 * SQRT_TWO_OVER_PI * (x + GELU_TANH_CUBIC * x * x * x)));
            case SILU -> (float) (x * sigmoid(x));
            case SOFTPLUS -> x > SOFTPLUS_THRESHOLD ? x : (float) Math.log1p(Math.exp(x));
            case ERF -> (float) SpecialFunctions.erf(x);
            // PyTorch's (0 < x) − (x < 0): ±0 and NaN give 0.
            case SIGN -> x > 0 ? 1f : x < 0 ? -1f : 0f;
            case RECIPROCAL -> 1f / x;
            case SQUARE -> x * x;
        };
    }

    /** The op applied to one pair of values; comparisons give 1.0 or 0.0 (NaN compares false, except NE). */
    static float apply(BinaryOp op, float a, float b) {
        return switch (op) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            case DIV -> a / b;
            case POW -> (float) Math.pow(a, b);
            case MAXIMUM -> Math.max(a, b); // NaN if either is NaN, like torch.maximum
            case MINIMUM -> Math.min(a, b);
            case EQ -> a == b ? 1f : 0f;
            case NE -> a != b ? 1f : 0f;
            case LT -> a < b ? 1f : 0f;
            case LE -> a <= b ? 1f : 0f;
            case GT -> a > b ? 1f : 0f;
            case GE -> a >= b ? 1f : 0f;
        };
    }

    /** 1/(1+e^(−x)) without overflow: for x &lt; 0 it is e^x/(1+e^x). */
    static double sigmoid(double x) {
        if (x >= 0) return 1.0 / (1.0 + Math.exp(-x));
        double e = Math.exp(x);
        return e / (1.0 + e);
    }

    static float[] unary(UnaryOp op, float[] x, Layout layout) {
        int n = layout.numel();
        float[] out = new float[n];
        StridedWalker w = new StridedWalker(layout);
        for (int i = 0; i < n; i++) out[i] = apply(op, x[w.next()]);
        return out;
    }

    static float[] binary(BinaryOp op, float[] a, Layout aLayout, float[] b, Layout bLayout) {
        int n = aLayout.numel();
        float[] out = new float[n];
        StridedWalker wa = new StridedWalker(aLayout);
        StridedWalker wb = new StridedWalker(bLayout);
        for (int i = 0; i < n; i++) out[i] = apply(op, a[wa.next()], b[wb.next()]);
        return out;
    }

    /** out = condition != 0 ? a : b; the condition may be of any dtype. */
    static float[] where(Object condition, DType conditionType, Layout conditionLayout,
                         float[] a, Layout aLayout, float[] b, Layout bLayout) {
        int n = aLayout.numel();
        float[] out = new float[n];
        StridedWalker wc = new StridedWalker(conditionLayout);
        StridedWalker wa = new StridedWalker(aLayout);
        StridedWalker wb = new StridedWalker(bLayout);
        for (int i = 0; i < n; i++) {
            float va = a[wa.next()], vb = b[wb.next()];
            out[i] = ReferenceCopies.isNonZero(condition, conditionType, wc.next()) ? va : vb;
        }
        return out;
    }
}
