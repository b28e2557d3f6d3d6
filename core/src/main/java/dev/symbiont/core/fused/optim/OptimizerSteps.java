package dev.symbiont.core.fused.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.FusedOp;
import dev.symbiont.core.ops.Checks;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;

/**
 * The optimizer steps of the optim family: checks, then the backend's kernels (or the
 * reference) inside a profiler scope, with gradients off. No autograd: an optimizer step is
 * not differentiated. FLOP estimates count the reference's elementwise ops per element.
 */
public final class OptimizerSteps {
    private OptimizerSteps() {}

    /** Adam/AdamW for one parameter: updates {@code param} in place, returns the new moments (see {@link OptimKernels#adamStep}). */
    public static OptimKernels.AdamState adam(Tensor param, Tensor grad, Tensor expAvg, Tensor expAvgSq, OptimKernels.AdamHyper h) {
        String op = h.decoupled() ? "adamw_step" : "adam_step";
        check(op, param, grad, expAvg, expAvgSq);
        try (var p = Profiler.op(param.backend(), op, OpCategory.OTHER, 14L * param.numel(),
                FusedOp.bytes(param, grad, expAvg, expAvgSq) * 2);
             var noGrad = GradMode.disabled()) {
            return FusedKernels.of(OptimKernels.FAMILY, param.backend()).adamStep(param, grad, expAvg, expAvgSq, h);
        }
    }

    /** SGD with momentum for one parameter: updates {@code param} in place, returns the new momentum buffer. */
    public static Tensor sgdMomentum(Tensor param, Tensor grad, Tensor momentumBuffer, OptimKernels.SgdHyper h) {
        check("sgd_step", param, grad, momentumBuffer);
        try (var p = Profiler.op(param.backend(), "sgd_step", OpCategory.OTHER, 7L * param.numel(),
                FusedOp.bytes(param, grad, momentumBuffer) * 2);
             var noGrad = GradMode.disabled()) {
            return FusedKernels.of(OptimKernels.FAMILY, param.backend()).sgdMomentumStep(param, grad, momentumBuffer, h);
        }
    }

    /** float32 tensors on one backend, all of the parameter's shape (nulls: state not yet made). */
    private static void check(String op, Tensor param, Tensor... others) {
        Checks.float32(op, param);
        Checks.float32(op, others);
        for (Tensor t : others) {
            if (t == null) continue;
            Checks.sameBackend(op, param, t);
            if (!Arrays.equals(t.shape(), param.shape())) {
                throw new IllegalArgumentException(op + ": parameter of shape " + Arrays.toString(param.shape())
                        + " got a gradient or state of shape " + Arrays.toString(t.shape()));
            }
        }
    }
}
