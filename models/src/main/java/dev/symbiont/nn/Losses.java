package dev.symbiont.nn;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;

import java.util.Arrays;

/** Loss functions with PyTorch's names and mean reduction (torch.nn.functional). */
public final class Losses {
    /** PyTorch's default ignore_index. */
    public static final long IGNORE_INDEX = -100;

    private Losses() {}

    /** Mean cross-entropy of logits (..., classes) against integer targets (...), ignoring -100. */
    public static Tensor crossEntropy(Tensor logits, Tensor targets) {
        return logits.crossEntropy(targets, IGNORE_INDEX);
    }

    /**
     * Cross-entropy with label smoothing ε, as torch.nn.functional.cross_entropy: the target
     * distribution puts 1-ε on the label and ε spread evenly over all classes, so the loss is
     * (1-ε)·NLL + ε·mean over classes of -log p. Targets equal to {@code ignoreIndex} are left
     * out of both terms and of the mean.
     */
    public static Tensor crossEntropy(Tensor logits, Tensor targets, long ignoreIndex, double labelSmoothing) {
        if (!(labelSmoothing >= 0 && labelSmoothing <= 1)) {
            throw new IllegalArgumentException("cross_entropy: label smoothing must be in [0, 1], got " + labelSmoothing);
        }
        Tensor nll = logits.crossEntropy(targets, ignoreIndex);
        if (labelSmoothing == 0) return nll;
        int classes = logits.size(-1);
        int rows = targets.numel();
        // On the device: ids below 2^24 compare exactly as floats (the index checks ran in nll).
        Tensor keep = targets.reshape(rows, 1).to(DType.FLOAT32).eq(ignoreIndex).neg().add(1);
        Tensor uniform = logits.reshape(rows, classes).logSoftmax(-1).mean(-1, true).neg().mul(keep);
        Tensor smooth = uniform.sum().div(keep.sum());
        return nll.mul(1 - labelSmoothing).add(smooth.mul(labelSmoothing));
    }

    /** Mean squared error; input and target have the same shape. */
    public static Tensor mse(Tensor input, Tensor target) { return input.mseLoss(target); }

    /**
     * Mean binary cross-entropy of logits against targets in [0, 1] of the same shape, in the
     * stable form max(x, 0) − x·y + log(1 + e^{−|x|}) (torch's binary_cross_entropy_with_logits).
     */
    public static Tensor bceWithLogits(Tensor logits, Tensor targets) {
        if (!Arrays.equals(logits.shape(), targets.shape())) {
            throw new IllegalArgumentException("binary_cross_entropy_with_logits: logits shape " + Arrays.toString(logits.shape())
                    + " differs from targets shape " + Arrays.toString(targets.shape()));
        }
        return logits.relu().sub(logits.mul(targets)).add(logits.abs().neg().softplus()).mean();
    }
}
