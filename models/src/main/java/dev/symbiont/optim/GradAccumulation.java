package dev.symbiont.optim;

import dev.symbiont.core.Tensor;

/**
 * Gradient accumulation: one optimizer step from several micro-batches when a full batch does
 * not fit in memory. Backward adds into each parameter's gradient, so back-propagating
 * {@code loss / k} for each of k micro-batches leaves
 * <pre>
 *   grad = Σ_j ∇(loss_j / k) = ∇ mean_j(loss_j)
 * </pre>
 * which, when each loss_j is a mean over an equally sized micro-batch, is the gradient of one
 * batch k times larger. Without the division the step would be k times too large. Usage:
 * <pre>
 *   var accumulation = new GradAccumulation(4);
 *   for (var batch : loader) {
 *       if (accumulation.backward(loss(batch))) {   // true on every 4th micro-batch
 *           optimizer.step();
 *           optimizer.zeroGrad();
 *       }
 *   }
 * </pre>
 * With a {@code GradScaler}, pass {@code scaler.scale(loss)}; the scale is a power of two, so
 * the order of the two factors does not matter.
 */
public final class GradAccumulation {
    private final int microBatches;
    private int pending;

    public GradAccumulation(int microBatches) {
        if (microBatches < 1) throw new IllegalArgumentException("GradAccumulation: micro-batches must be >= 1, got " + microBatches);
        this.microBatches = microBatches;
    }

    public int microBatches() { return microBatches; }

    /** Micro-batches back-propagated since the last completed step. */
    public int pending() { return pending; }

    /** The loss to back-propagate for one micro-batch: {@code loss / microBatches}. */
    public Tensor scale(Tensor loss) { return microBatches == 1 ? loss : loss.div(microBatches); }

    /**
     * Back-propagates {@link #scale(Tensor) scale(loss)} and returns true when this micro-batch
     * completes a step's worth, i.e. when the caller should step the optimizer and zero the grads.
     */
    public boolean backward(Tensor loss) {
        scale(loss).backward();
        if (++pending < microBatches) return false;
        pending = 0;
        return true;
    }
}
