package dev.symbiont.core.fused.optim;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.fused.Family;

/**
 * The optim family's contract: one optimizer step for one parameter as a single pass over the
 * parameter, its gradient and its state, instead of the ten or so tensor ops each step costs
 * when written with tensor ops ({@link ReferenceOptim}, torch.optim's single-tensor formulas).
 *
 * <p>The parameter is updated in place (it is a leaf; gradients are off). The state comes back
 * as new tensors and the given ones are left as they were, so a state dict taken before a
 * step keeps its values. All tensors have the parameter's shape; a null state is a first step.
 */
public interface OptimKernels {

    Family<OptimKernels> FAMILY = new Family<>("optim", OptimKernels.class, new ReferenceOptim());

    /**
     * Adam (or AdamW with {@code h.decoupled()}) at step {@code h.step()} (1 on the first):
     * writes the new parameter into {@code param} and returns the new exp_avg and exp_avg_sq.
     */
    AdamState adamStep(Tensor param, Tensor grad, Tensor expAvg, Tensor expAvgSq, AdamHyper h);

    /** SGD with momentum ({@code h.momentum()} > 0): writes the parameter, returns the new momentum buffer. */
    Tensor sgdMomentumStep(Tensor param, Tensor grad, Tensor momentumBuffer, SgdHyper h);

    /** Adam's settings for one step; the bias corrections are derived from {@code step} in double. */
    record AdamHyper(double lr, double beta1, double beta2, double eps, double weightDecay, boolean decoupled, long step) {
        /** lr / (1 − β1^t). */
        public double stepSize() { return lr / (1 - Math.pow(beta1, step)); }

        /** sqrt(1 − β2^t). */
        public double bias2Sqrt() { return Math.sqrt(1 - Math.pow(beta2, step)); }
    }

    /** SGD's settings for one step. */
    record SgdHyper(double lr, double momentum, double dampening, boolean nesterov, double weightDecay) {}

    /** Adam's new moments. */
    record AdamState(Tensor expAvg, Tensor expAvgSq) {}
}
