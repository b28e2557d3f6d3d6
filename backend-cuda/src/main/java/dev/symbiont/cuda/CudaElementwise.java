package dev.symbiont.cuda;

import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.cuda.driver.KernelArgs;

/** Unary, binary and where over float32 ({@code elementwise.cu}), with the reference backend's formulas. */
final class CudaElementwise {
    private final CudaBackend backend;

    CudaElementwise(CudaBackend backend) { this.backend = backend; }

    CudaStorage unary(UnaryOp op, CudaStorage x, Layout xLayout) {
        backend.enter();
        long n = xLayout.numel();
        CudaStorage out = backend.empty(x.dtype(), n);
        backend.kernels().launch("elementwise", "unary_f32", n, KernelArgs.of().pointer(out.address()).pointer(x.address())
                .struct(Strided.of(op.name(), xLayout), Strided.ALIGN).i64(n).i32(code(op)));
        return out;
    }

    CudaStorage binary(BinaryOp op, CudaStorage a, Layout aLayout, CudaStorage b, Layout bLayout) {
        backend.enter();
        long n = aLayout.numel();
        CudaStorage out = backend.empty(a.dtype(), n);
        backend.kernels().launch("elementwise", "binary_f32", n, KernelArgs.of().pointer(out.address())
                .pointer(a.address()).struct(Strided.of(op.name(), aLayout), Strided.ALIGN)
                .pointer(b.address()).struct(Strided.of(op.name(), bLayout), Strided.ALIGN).i64(n).i32(code(op)));
        return out;
    }

    CudaStorage where(CudaStorage condition, Layout conditionLayout, CudaStorage a, Layout aLayout, CudaStorage b, Layout bLayout) {
        backend.enter();
        long n = aLayout.numel();
        CudaStorage out = backend.empty(a.dtype(), n);
        backend.kernels().launch("elementwise", "where_" + CudaCopies.suffix(condition.dtype()), n, KernelArgs.of()
                .pointer(out.address())
                .pointer(condition.address()).struct(Strided.of("where", conditionLayout), Strided.ALIGN)
                .pointer(a.address()).struct(Strided.of("where", aLayout), Strided.ALIGN)
                .pointer(b.address()).struct(Strided.of("where", bLayout), Strided.ALIGN).i64(n));
        return out;
    }

    /** The op's code in {@code elementwise.cu}'s {@code enum Unary}. */
    static int code(UnaryOp op) {
        return switch (op) {
            case NEG -> 0;
            case ABS -> 1;
            case EXP -> 2;
            case LOG -> 3;
            case SQRT -> 4;
            case RSQRT -> 5;
            case TANH -> 6;
            case SIGMOID -> 7;
            case RELU -> 8;
            case GELU_ERF -> 9;
            case GELU_TANH -> 10;
            case SILU -> 11;
            case SOFTPLUS -> 12;
            case ERF -> 13;
            case SIGN -> 14;
            case RECIPROCAL -> 15;
            case SQUARE -> 16;
        };
    }

    /** The op's code in {@code elementwise.cu}'s {@code enum Binary}. */
    static int code(BinaryOp op) {
        return switch (op) {
            case ADD -> 0;
            case SUB -> 1;
            case MUL -> 2;
            case DIV -> 3;
            case POW -> 4;
            case MAXIMUM -> 5;
            case MINIMUM -> 6;
            case EQ -> 7;
            case NE -> 8;
            case LT -> 9;
            case LE -> 10;
            case GT -> 11;
            case GE -> 12;
        };
    }
}
