package dev.symbiont.core.ops;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;
import java.util.OptionalLong;

/**
 * cross_entropy and mse_loss (mean reduction). Both are composed of recorded ops (log_softmax,
 * gather, sum, ...), which report the work; the loss scopes' self time is the glue around them.
 */
public final class Losses {
    private Losses() {}

    /**
     * Mean cross-entropy of logits (..., classes) against integer targets (...); targets equal
     * to {@code ignoreIndex} count neither in the sum nor in the mean.
     */
    public static Tensor crossEntropy(Tensor logits, Tensor targets, long ignoreIndex) {
        try (var p = Profiler.op("cross_entropy", OpCategory.LOSS)) {
            return crossEntropyOf(logits, targets, ignoreIndex);
        }
    }

    private static Tensor crossEntropyOf(Tensor logits, Tensor targets, long ignoreIndex) {
        Checks.sameBackend("cross_entropy", logits, targets);
        Checks.integer("cross_entropy", "targets", targets);
        if (logits.dim() < 1) throw new IllegalArgumentException("cross_entropy: logits need a class dim, got a scalar");
        int classes = logits.size(-1);
        int[] leading = Arrays.copyOf(logits.shape(), logits.dim() - 1);
        if (!Arrays.equals(leading, targets.shape())) {
            throw new IllegalArgumentException("cross_entropy: logits shape " + Arrays.toString(logits.shape())
                    + " needs targets of shape " + Arrays.toString(leading) + ", got " + Arrays.toString(targets.shape()));
        }
        // Checked on the backend: no download of the targets, no upload of an index or mask.
        int n = targets.numel();
        Backend.IndexCheck checked = logits.backend().checkIndex("cross_entropy", targets.storage(), targets.layout(),
                classes, OptionalLong.of(ignoreIndex));
        Tensor rows = logits.reshape(n, classes).logSoftmax(-1);
        Tensor keep = Tensor.of(checked.keep(), n, 1);
        Tensor picked = rows.gather(1, Tensor.of(checked.ids(), n, 1)).mul(keep);
        // All targets ignored gives NaN, as PyTorch does (0/0).
        return picked.sum().neg().div(keep.sum());
    }

    public static Tensor mseLoss(Tensor input, Tensor target) {
        if (!Arrays.equals(input.shape(), target.shape())) {
            throw new IllegalArgumentException("mse_loss: input shape " + Arrays.toString(input.shape())
                    + " differs from target shape " + Arrays.toString(target.shape()));
        }
        try (var p = Profiler.op("mse_loss", OpCategory.LOSS)) {
            return input.sub(target).square().mean();
        }
    }
}
