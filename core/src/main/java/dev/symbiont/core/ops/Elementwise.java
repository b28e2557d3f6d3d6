package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.Autograd;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;

/** Unary, binary (numpy broadcasting) and where, with their gradients. */
public final class Elementwise {
    private Elementwise() {}

    public static Tensor unary(UnaryOp op, Tensor x) {
        String name = op.opName();
        try (var p = Profiled.pass(name, OpCategory.ELEMENTWISE, x, 1)) {
            Checks.float32(name, x);
            Tensor y = Tensor.of(x.backend().unary(op, x.storage(), x.layout()), x.shape());
            // Save only the tensor the rule reads, so the graph does not keep the other alive.
            Tensor savedX = UnaryGrads.readsInput(op) ? x : null, savedY = UnaryGrads.readsOutput(op) ? y : null;
            return Autograd.record(name, y, g -> new Tensor[] {UnaryGrads.grad(op, savedX, savedY, g)}, x);
        }
    }

    public static Tensor binary(BinaryOp op, Tensor a, Tensor b) {
        String name = op.opName();
        Checks.sameBackend(name, a, b);
        Checks.float32(name, a, b);
        int[] shape = Checks.broadcast(name, a.layout().shape(), b.layout().shape());
        try (var p = Profiled.binary(name, shape, a, b)) {
            return compute(op, a, b, shape);
        }
    }

    private static Tensor compute(BinaryOp op, Tensor a, Tensor b, int[] shape) {
        String name = op.opName();
        Layout la = broadcastLayout(a, shape), lb = broadcastLayout(b, shape);
        Tensor y = Tensor.of(a.backend().binary(op, a.storage(), la, b.storage(), lb), shape);
        if (op.isComparison()) return y;
        if (op == BinaryOp.ADD || op == BinaryOp.SUB) return recordSum(op, y, a, b);
        return Autograd.record(name, y, g -> binaryGrads(op, a, b, y, g), a, b);
    }

    /** add/sub save only the operands' shapes: residual streams stay collectable. */
    private static Tensor recordSum(BinaryOp op, Tensor y, Tensor a, Tensor b) {
        int[] shapeA = a.shape(), shapeB = b.shape();
        boolean needA = a.requiresGrad(), needB = b.requiresGrad();
        return Autograd.record(op.opName(), y, g -> new Tensor[] {
                needA ? Reductions.sumToShape(g, shapeA) : null,
                needB ? Reductions.sumToShape(op == BinaryOp.SUB ? g.neg() : g, shapeB) : null}, a, b);
    }

    /** The operand's layout expanded to the result shape; the same layout when no broadcast is needed. */
    private static Layout broadcastLayout(Tensor t, int[] shape) {
        Layout l = t.layout();
        return Arrays.equals(l.shape(), shape) ? l : l.expand(shape);
    }

    /** Like binary with a scalar tensor, counted as one op (the scalar's creation included). */
    public static Tensor binaryScalar(BinaryOp op, Tensor a, double s) {
        String name = op.opName();
        Checks.float32(name, a);
        try (var p = Profiled.pass(name, OpCategory.ELEMENTWISE, a, 1)) {
            return compute(op, a, scalarLike(a, s), a.layout().shape());
        }
    }

    public static Tensor where(Tensor condition, Tensor a, Tensor b) {
        Checks.sameBackend("where", condition, a, b);
        Checks.float32("where", condition, a, b);
        int[] shape = Checks.broadcast("where", Checks.broadcast("where", condition.layout().shape(), a.layout().shape()),
                b.layout().shape());
        try (var p = Profiled.where(shape, condition, a, b)) {
            Tensor y = Tensor.of(a.backend().where(condition.storage(), broadcastLayout(condition, shape),
                    a.storage(), broadcastLayout(a, shape), b.storage(), broadcastLayout(b, shape)), shape);
            int[] shapeA = a.shape(), shapeB = b.shape();
            boolean needA = a.requiresGrad(), needB = b.requiresGrad();
            return Autograd.record("where", y, g -> {
                Tensor zero = scalarLike(g, 0.0);
                return new Tensor[] {null,
                        needA ? Reductions.sumToShape(where(condition, g, zero), shapeA) : null,
                        needB ? Reductions.sumToShape(where(condition, zero, g), shapeB) : null};
            }, condition, a, b);
        }
    }

    /** Values limited to [min, max]; the gradient passes where the input was inside. */
    public static Tensor clamp(Tensor x, double min, double max) {
        Checks.float32("clamp", x);
        if (min > max) throw new IllegalArgumentException("clamp: min " + min + " is greater than max " + max);
        // Built from maximum and minimum, which report their own work.
        try (var p = Profiler.op("clamp", OpCategory.ELEMENTWISE)) {
            Tensor y;
            try (var scope = GradMode.disabled()) {
                y = x.detach().maximum(scalarLike(x, min)).minimum(scalarLike(x, max));
            }
            return Autograd.record("clamp", y, g -> new Tensor[] {g.mul(x.ge(scalarLike(x, min)).mul(x.le(scalarLike(x, max))))}, x);
        }
    }

    static Tensor scalarLike(Tensor like, double value) {
        return Creation.full(like.backend(), value, DType.FLOAT32);
    }

    private static Tensor[] binaryGrads(BinaryOp op, Tensor a, Tensor b, Tensor y, Tensor g) {
        Tensor ga = null, gb = null;
        boolean needA = a.requiresGrad(), needB = b.requiresGrad();
        switch (op) {
            case MUL -> { ga = needA ? g.mul(b) : null; gb = needB ? g.mul(a) : null; }
            case DIV -> {
                ga = needA ? g.div(b) : null;
                gb = needB ? g.mul(a).div(b.square()).neg() : null;
            }
            case POW -> {
                // PyTorch's convention instead of the 0·∞ = NaN the plain formulas give: the base gets 0
                // where the exponent is 0 (x^0 is constant, even at x = 0), the exponent gets 0 where
                // the base is 0 and the exponent non-negative.
                Tensor zero = scalarLike(g, 0.0);
                ga = needA ? where(b.eq(0.0), zero, g.mul(b).mul(a.pow(b.sub(1.0)))) : null;
                gb = needB ? where(a.eq(0.0).mul(b.ge(zero)), zero, g.mul(y).mul(a.log())) : null;
            }
            case MAXIMUM, MINIMUM -> {
                Tensor wins = op == BinaryOp.MAXIMUM ? a.gt(b) : a.lt(b);
                Tensor ties = a.eq(b).mul(0.5);
                Tensor shareA = wins.add(ties);
                ga = needA ? g.mul(shareA) : null;
                gb = needB ? g.mul(shareA.neg().add(1.0)) : null;
            }
            default -> throw new IllegalStateException("no gradient for " + op);
        }
        return new Tensor[] {
                ga == null ? null : Reductions.sumToShape(ga, a.shape()),
                gb == null ? null : Reductions.sumToShape(gb, b.shape())};
    }

}
