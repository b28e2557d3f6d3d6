package dev.symbiont.cuda;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.cuda.driver.KernelArgs;

import java.util.Arrays;

/**
 * The activation family on {@code activation.cu}: each gradient in one elementwise pass instead of
 * the reference's chain of nine. Strided or broadcast operands (the gradient of a sum is an expanded
 * scalar) are copied contiguous first. Empty or non-float32 operands, or shapes that differ, run
 * the reference, counted as a fallback.
 */
final class CudaActivationKernels implements ActivationKernels {
    private static final ActivationKernels REFERENCE = ActivationKernels.FAMILY.reference();
    /** The codes of {@code activation.cu}'s {@code enum Activation}. */
    private static final int GELU_ERF = 0, GELU_TANH = 1, SILU = 2;

    private final FusedOperands io;

    CudaActivationKernels(CudaBackend backend) { this.io = new FusedOperands(backend); }

    @Override
    public Tensor geluBackward(Tensor x, Tensor gradY, boolean tanhApproximation) {
        String op = tanhApproximation ? "gelu_tanh backward" : "gelu backward";
        if (!ready(op, x, gradY)) return REFERENCE.geluBackward(x, gradY, tanhApproximation);
        return backward(x, gradY, tanhApproximation ? GELU_TANH : GELU_ERF);
    }

    @Override
    public Tensor siluBackward(Tensor x, Tensor gradY) {
        if (!ready("silu backward", x, gradY)) return REFERENCE.siluBackward(x, gradY);
        return backward(x, gradY, SILU);
    }

    private static boolean ready(String op, Tensor x, Tensor gradY) {
        if (!FusedOperands.nonEmptyFloats(op, x, gradY)) return false;
        if (Arrays.equals(x.shape(), gradY.shape())) return true;
        Fallbacks.record(op, "gradient and input shapes differ");
        return false;
    }

    /** out (x's shape, contiguous) = gradY · f'(x) for the activation with kernel code {@code code}. */
    private Tensor backward(Tensor x, Tensor gradY, int code) {
        io.backend().enter();
        Tensor xs = FusedOperands.dense(x), gs = FusedOperands.dense(gradY);
        Tensor out = io.empty(x.shape());
        long n = x.numel();
        io.backend().kernels().launch("activation", "activation_backward_f32", n, KernelArgs.of()
                .pointer(FusedOperands.address(out)).pointer(FusedOperands.address(xs)).pointer(FusedOperands.address(gs))
                .i64(n).i32(code));
        return out;
    }

    @Override
    public String toString() { return "CudaActivationKernels"; }
}
