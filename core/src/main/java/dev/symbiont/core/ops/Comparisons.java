package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.profile.OpCategory;

import java.util.Arrays;

/**
 * eq, ne, lt, le, gt and ge of operands of any dtypes, promoted as PyTorch promotes them
 * ({@code torch.result_type}), giving a float32 mask of 1 (true) and 0 (false) where PyTorch gives
 * bool. The mask is outside autograd: comparisons have no gradient, as in PyTorch.
 *
 * <p>Two integer operands compare exactly as int64 (never through float32, so ids past 2^24 stay
 * distinct); any other pair is converted to the promoted floating dtype, rounding as that dtype
 * does, and compared in float32, which holds every bfloat16 and float16 value exactly.
 */
public final class Comparisons {
    private Comparisons() {}

    /** {@code a op b} with numpy broadcasting; the result has the broadcast shape. */
    public static Tensor compare(BinaryOp op, Tensor a, Tensor b) {
        String name = checked(op);
        Checks.sameBackend(name, a, b);
        int[] shape = Checks.broadcast(name, a.layout().shape(), b.layout().shape());
        try (var p = Profiled.binary(name, shape, a, b)) {
            return compute(op, a, b, resultType(a, b), shape);
        }
    }

    /**
     * {@code a op s} for a floating scalar (a Python float): an integer tensor compares in
     * float32, a floating one in its own dtype, the scalar rounded to it.
     */
    public static Tensor compare(BinaryOp op, Tensor a, double s) {
        String name = checked(op);
        DType type = a.dtype().isFloating() ? a.dtype() : DType.FLOAT32;
        try (var p = Profiled.pass(name, OpCategory.ELEMENTWISE, a, 1)) {
            return compute(op, a, Creation.full(a.backend(), s, type), type, a.layout().shape());
        }
    }

    /**
     * {@code a op s} for an integer scalar (a Python int): an integer tensor compares exactly with
     * it, a floating one in its own dtype, the scalar rounded to it.
     */
    public static Tensor compare(BinaryOp op, Tensor a, long s) {
        String name = checked(op);
        // An int32 tensor stays int32 against a scalar it can hold (no widening copy).
        DType type = a.dtype().isFloating() ? a.dtype() : a.dtype() == DType.INT32 && s == (int) s ? DType.INT32 : DType.INT64;
        try (var p = Profiled.pass(name, OpCategory.ELEMENTWISE, a, 1)) {
            Tensor scalar = type == DType.INT64 && (long) (double) s != s
                    ? Creation.upload(a.backend(), DType.INT64, new long[] {s}, 1) // beyond 2^53 a double cannot carry it
                    : Creation.full(a.backend(), type.isFloating() ? (float) s : (double) s, type);
            return compute(op, a, scalar, type, a.layout().shape());
        }
    }

    /**
     * The dtype PyTorch computes {@code a op b} in: {@link DType#promoteTypes} of the two, except
     * that a 0-dim tensor beside a dimensioned one only counts when it is of a higher category
     * (a float32 scalar tensor leaves a float16 tensor float16, but makes an int64 one float32).
     */
    public static DType resultType(Tensor a, Tensor b) {
        boolean zeroA = a.dim() == 0, zeroB = b.dim() == 0;
        if (zeroA == zeroB) return DType.promoteTypes(a.dtype(), b.dtype());
        DType dimensioned = zeroA ? b.dtype() : a.dtype(), zeroDim = zeroA ? a.dtype() : b.dtype();
        return dimensioned.isInteger() && zeroDim.isFloating() ? zeroDim : dimensioned;
    }

    private static String checked(BinaryOp op) {
        if (!op.isComparison()) throw new IllegalArgumentException(op.opName() + ": not a comparison");
        return op.opName();
    }

    private static Tensor compute(BinaryOp op, Tensor a, Tensor b, DType type, int[] shape) {
        var backend = a.backend();
        if (type.isInteger()) {
            // Integers always compare exactly: a pair of different widths meets in int64.
            DType common = a.dtype() == b.dtype() ? a.dtype() : DType.INT64;
            Tensor x = convert(a, common), y = convert(b, common);
            return Tensor.of(backend.compare(op, x.storage(), expanded(x, shape), y.storage(), expanded(y, shape)), shape);
        }
        Tensor x = inFloat32(a, type), y = inFloat32(b, type);
        return Tensor.of(backend.binary(op, x.storage(), expanded(x, shape), y.storage(), expanded(y, shape)), shape);
    }

    /** t rounded to the compute dtype, then widened (exactly) to float32, where the kernels compare. */
    private static Tensor inFloat32(Tensor t, DType type) {
        return convert(convert(t, type), DType.FLOAT32);
    }

    /** A cast on the backend outside autograd; t itself when it already has the dtype. */
    private static Tensor convert(Tensor t, DType to) {
        if (t.dtype() == to) return t;
        return Tensor.of(t.backend().cast(t.storage(), t.layout(), to), t.shape());
    }

    private static Layout expanded(Tensor t, int[] shape) {
        Layout l = t.layout();
        return Arrays.equals(l.shape(), shape) ? l : l.expand(shape);
    }
}
