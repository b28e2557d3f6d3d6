package dev.symbiont.cpu.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.cpu.kernels.VectorActivationGrads;

import java.util.Arrays;

/**
 * The activation gradients in one Vector-API pass each ({@link VectorActivationGrads}) instead
 * of the reference's nine elementwise ops. Strided or broadcast operands (the gradient of a
 * sum is an expanded scalar) are copied contiguous first: one pass, not nine.
 */
public final class CpuActivation implements ActivationKernels {
    private static final ActivationKernels REFERENCE = ActivationKernels.FAMILY.reference();
    private final CpuTensors io;

    public CpuActivation(Backend backend) { this.io = new CpuTensors(backend); }

    @Override
    public Tensor geluBackward(Tensor x, Tensor gradY, boolean tanhApproximation) {
        UnaryOp op = tanhApproximation ? UnaryOp.GELU_TANH : UnaryOp.GELU_ERF;
        if (!ready(op, x, gradY)) return REFERENCE.geluBackward(x, gradY, tanhApproximation);
        return backward(op, x, gradY);
    }

    @Override
    public Tensor siluBackward(Tensor x, Tensor gradY) {
        if (!ready(UnaryOp.SILU, x, gradY)) return REFERENCE.siluBackward(x, gradY);
        return backward(UnaryOp.SILU, x, gradY);
    }

    /** x and gradY non-empty float32 of one shape; otherwise counts a fallback. */
    private static boolean ready(UnaryOp op, Tensor x, Tensor gradY) {
        if (x.numel() > 0 && x.dtype() == DType.FLOAT32 && gradY.dtype() == DType.FLOAT32
                && Arrays.equals(x.shape(), gradY.shape())) {
            return true;
        }
        Fallbacks.record(op.opName() + " backward", "not two non-empty float32 tensors of one shape");
        return false;
    }

    private Tensor backward(UnaryOp op, Tensor x, Tensor gradY) {
        String name = op.opName() + " backward";
        x = x.contiguous();
        gradY = gradY.contiguous();
        float[] xs = HeapStorage.floats(name, x.storage(), x.layout()), gs = HeapStorage.floats(name, gradY.storage(), gradY.layout());
        HeapStorage out = io.newFloats(x.numel());
        VectorActivationGrads.backward(op, xs, x.layout().offset(), gs, gradY.layout().offset(), out.floats(), x.numel());
        return Tensor.of(out, x.shape());
    }

    @Override
    public String toString() { return "CpuActivation"; }
}
