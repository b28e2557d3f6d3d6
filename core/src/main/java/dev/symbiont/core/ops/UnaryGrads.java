package dev.symbiont.core.ops;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.UnaryOp;

/** d(op)/dx times the incoming gradient, written with tensor ops so every backend gets it. */
final class UnaryGrads {
    private static final double SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);
    private static final double INV_SQRT_2 = 1 / Math.sqrt(2);
    private static final double INV_SQRT_2PI = 1 / Math.sqrt(2 * Math.PI);
    private static final double GELU_TANH_CUBIC = 0.044715;

    private UnaryGrads() {}

    /** x: input, y: output, g: gradient of y. */
    /** Whether {@link #grad} reads the op's input x. */
    static boolean readsInput(UnaryOp op) {
        return switch (op) {
            case NEG, SIGN, EXP, SQRT, RSQRT, TANH, SIGMOID, RECIPROCAL -> false;
            default -> true;
        };
    }

    /** Whether {@link #grad} reads the op's output y. */
    static boolean readsOutput(UnaryOp op) {
        return switch (op) {
            case EXP, SQRT, RSQRT, TANH, SIGMOID, RECIPROCAL -> true;
            default -> false;
        };
    }

    static Tensor grad(UnaryOp op, Tensor x, Tensor y, Tensor g) {
        return switch (op) {
            case NEG -> g.neg();
            case ABS, SIGN -> op == UnaryOp.SIGN ? Tensor.zerosLike(g) : g.mul(Elementwise.unary(UnaryOp.SIGN, x));
            case EXP -> g.mul(y);
            case LOG -> g.div(x);
            case SQRT -> g.mul(0.5).div(y);
            case RSQRT -> g.mul(y.square().mul(y)).mul(-0.5);
            case TANH -> g.mul(y.square().neg().add(1.0));
            case SIGMOID -> g.mul(y.mul(y.neg().add(1.0)));
            case RELU -> g.mul(x.gt(0.0));
            case GELU_ERF -> {
                // d/dx [x Phi(x)] = Phi(x) + x phi(x)
                Tensor cdf = Elementwise.unary(UnaryOp.ERF, x.mul(INV_SQRT_2)).add(1.0).mul(0.5);
                Tensor pdf = x.square().mul(-0.5).exp().mul(INV_SQRT_2PI);
                yield g.mul(cdf.add(x.mul(pdf)));
            }
            case GELU_TANH -> {
                Tensor x2 = x.square();
                Tensor t = x.add(x2.mul(x).mul(GELU_TANH_CUBIC)).mul(SQRT_2_OVER_PI).tanh();
                Tensor du = x2.mul(3 * GELU_TANH_CUBIC).add(1.0).mul(SQRT_2_OVER_PI);
                Tensor d = t.add(1.0).mul(0.5).add(x.mul(0.5).mul(t.square().neg().add(1.0)).mul(du));
                yield g.mul(d);
            }
            case SILU -> {
                Tensor s = x.sigmoid();
                yield g.mul(s.mul(x.mul(s.neg().add(1.0)).add(1.0)));
            }
            case SOFTPLUS -> g.mul(x.sigmoid());
            case ERF -> g.mul(x.square().neg().exp().mul(2 / Math.sqrt(Math.PI)));
            case RECIPROCAL -> g.mul(y.square()).neg();
            case SQUARE -> g.mul(x).mul(2.0);
        };
    }
}
