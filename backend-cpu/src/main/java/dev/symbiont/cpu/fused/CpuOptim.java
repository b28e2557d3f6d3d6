package dev.symbiont.cpu.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.cpu.kernels.VectorOptim;

/**
 * The optim family on {@link VectorOptim}: one pass per parameter over contiguous parameter,
 * gradient and state. A non-contiguous operand (a parameter seen through a view) takes the
 * reference, counted as a fallback; nothing a model registers is laid out that way.
 */
public final class CpuOptim implements OptimKernels {
    private static final OptimKernels REFERENCE = OptimKernels.FAMILY.reference();
    private final CpuTensors io;

    public CpuOptim(Backend backend) { this.io = new CpuTensors(backend); }

    @Override
    public AdamState adamStep(Tensor param, Tensor grad, Tensor expAvg, Tensor expAvgSq, AdamHyper h) {
        if (!contiguous("adam_step", param, grad, expAvg, expAvgSq)) return REFERENCE.adamStep(param, grad, expAvg, expAvgSq, h);
        String op = "adam_step";
        int n = param.numel();
        HeapStorage m = io.newFloats(n), v = io.newFloats(n);
        double lr = h.lr(), wd = h.weightDecay();
        var c = new VectorOptim.Adam((float) (1 - lr * wd), (float) wd, (float) (1 - h.beta1()), (float) h.beta2(),
                (float) (1 - h.beta2()), (float) h.bias2Sqrt(), (float) h.eps(), (float) h.stepSize(), h.decoupled(), wd != 0);
        VectorOptim.adam(floats(op, param), param.layout().offset(), floats(op, grad), grad.layout().offset(),
                expAvg == null ? null : floats(op, expAvg), expAvg == null ? 0 : expAvg.layout().offset(),
                expAvgSq == null ? null : floats(op, expAvgSq), expAvgSq == null ? 0 : expAvgSq.layout().offset(),
                m.floats(), v.floats(), n, c);
        return new AdamState(Tensor.of(m, param.shape()), Tensor.of(v, param.shape()));
    }

    @Override
    public Tensor sgdMomentumStep(Tensor param, Tensor grad, Tensor momentumBuffer, SgdHyper h) {
        if (!contiguous("sgd_step", param, grad, momentumBuffer)) return REFERENCE.sgdMomentumStep(param, grad, momentumBuffer, h);
        String op = "sgd_step";
        int n = param.numel();
        HeapStorage b = io.newFloats(n);
        var c = new VectorOptim.Sgd((float) h.lr(), (float) h.momentum(), (float) (1 - h.dampening()), (float) h.weightDecay(),
                h.dampening() != 0, h.nesterov(), h.weightDecay() != 0);
        VectorOptim.sgdMomentum(floats(op, param), param.layout().offset(), floats(op, grad), grad.layout().offset(),
                momentumBuffer == null ? null : floats(op, momentumBuffer), momentumBuffer == null ? 0 : momentumBuffer.layout().offset(),
                b.floats(), n, c);
        return Tensor.of(b, param.shape());
    }

    private static float[] floats(String op, Tensor t) {
        return HeapStorage.floats(op, t.storage(), t.layout());
    }

    /** Every given tensor contiguous (nulls are absent state); otherwise counts a fallback. */
    private static boolean contiguous(String op, Tensor... tensors) {
        for (Tensor t : tensors) {
            if (t != null && !t.isContiguous()) {
                Fallbacks.record(op, "an operand is not contiguous");
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() { return "CpuOptim"; }
}
