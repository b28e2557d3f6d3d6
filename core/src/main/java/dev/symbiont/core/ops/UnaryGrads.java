package dev.symbiont.core.ops;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.activation.ActivationKernels;

/**
 * d(op)/dx times the incoming gradient, written with tensor ops so every backend gets it; the
 * GELU and SiLU rules go through the activation family ({@link ActivationKernels}).
 */
final class UnaryGrads {
    private UnaryGrads() {}

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

    /** x: input, y: output, g: gradient of y. */
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
            // fused: one pass where the backend has a kernel, else the reference composition
            case GELU_ERF, GELU_TANH -> activation(x).geluBackward(x.detach(), g, op == UnaryOp.GELU_TANH);
            case SILU -> activation(x).siluBackward(x.detach(), g);
            case SOFTPLUS -> g.mul(x.sigmoid());
            case ERF -> g.mul(x.square().neg().exp().mul(2 / Math.sqrt(Math.PI)));
            case RECIPROCAL -> g.mul(y.square()).neg();
            case SQUARE -> g.mul(x).mul(2.0);
        };
    }

    private static ActivationKernels activation(Tensor x) {
        return FusedKernels.of(ActivationKernels.FAMILY, x.backend());
    }
}
