package dev.symbiont.cuda;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.cuda.driver.KernelArgs;

/**
 * The optim family on {@code optim.cu}: one kernel per parameter tensor that updates the parameter
 * in place and writes the new state to fresh tensors, with the reference's float32 operations in
 * its order (the same bits). The step's constants are rounded to float32 here as the reference's
 * scalars are. A parameter that is not contiguous (seen through a view) runs the reference,
 * counted as a fallback; a strided gradient or state is copied contiguous first.
 */
final class CudaOptimKernels implements OptimKernels {
    private static final OptimKernels REFERENCE = OptimKernels.FAMILY.reference();
    /** The bits of {@code optim.cu}'s {@code AdamFlags} and {@code SgdFlags}. */
    private static final int WEIGHT_DECAY = 1, DECOUPLED = 2, DAMPENED = 2, NESTEROV = 4;

    private final FusedOperands io;

    CudaOptimKernels(CudaBackend backend) { this.io = new FusedOperands(backend); }

    @Override
    public AdamState adamStep(Tensor param, Tensor grad, Tensor expAvg, Tensor expAvgSq, AdamHyper h) {
        String op = h.decoupled() ? "adamw_step" : "adam_step";
        if (!ready(op, param, grad, expAvg, expAvgSq)) return REFERENCE.adamStep(param, grad, expAvg, expAvgSq, h);
        io.backend().enter();
        Tensor g = FusedOperands.dense(grad), m = FusedOperands.dense(expAvg), v = FusedOperands.dense(expAvgSq);
        Tensor mOut = io.empty(param.shape()), vOut = io.empty(param.shape());
        long n = param.numel();
        double lr = h.lr(), wd = h.weightDecay();
        int flags = (wd != 0 ? WEIGHT_DECAY : 0) | (h.decoupled() ? DECOUPLED : 0);
        io.backend().kernels().launch("optim", "adam_step_f32", n, KernelArgs.of()
                .pointer(FusedOperands.address(param)).pointer(FusedOperands.address(g))
                .pointer(FusedOperands.address(m)).pointer(FusedOperands.address(v))
                .pointer(FusedOperands.address(mOut)).pointer(FusedOperands.address(vOut)).i64(n)
                .f32((float) (1 - lr * wd)).f32((float) wd).f32((float) (1 - h.beta1())).f32((float) h.beta2())
                .f32((float) (1 - h.beta2())).f32((float) h.bias2Sqrt()).f32((float) h.eps()).f32((float) h.stepSize())
                .i32(flags));
        return new AdamState(mOut, vOut);
    }

    @Override
    public Tensor sgdMomentumStep(Tensor param, Tensor grad, Tensor momentumBuffer, SgdHyper h) {
        if (!ready("sgd_step", param, grad, momentumBuffer)) return REFERENCE.sgdMomentumStep(param, grad, momentumBuffer, h);
        io.backend().enter();
        Tensor g = FusedOperands.dense(grad), buf = FusedOperands.dense(momentumBuffer);
        Tensor bufOut = io.empty(param.shape());
        long n = param.numel();
        int flags = (h.weightDecay() != 0 ? WEIGHT_DECAY : 0) | (h.dampening() != 0 ? DAMPENED : 0) | (h.nesterov() ? NESTEROV : 0);
        io.backend().kernels().launch("optim", "sgd_momentum_step_f32", n, KernelArgs.of()
                .pointer(FusedOperands.address(param)).pointer(FusedOperands.address(g))
                .pointer(FusedOperands.address(buf)).pointer(FusedOperands.address(bufOut)).i64(n)
                .f32((float) h.lr()).f32((float) h.momentum()).f32((float) (1 - h.dampening())).f32((float) h.weightDecay())
                .i32(flags));
        return bufOut;
    }

    /** A non-empty float32 parameter written in place, so contiguous; otherwise counts a fallback. */
    private static boolean ready(String op, Tensor param, Tensor... others) {
        if (!FusedOperands.nonEmptyFloats(op, param) || !FusedOperands.nonEmptyFloats(op, others)) return false;
        if (param.isContiguous()) return true;
        Fallbacks.record(op, "the parameter is not contiguous");
        return false;
    }

    @Override
    public String toString() { return "CudaOptimKernels"; }
}
