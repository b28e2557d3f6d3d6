package dev.symbiont.core.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.Profiler;

import java.util.Arrays;

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
        long[] t = targets.toLongArray();
        long[] safe = new long[t.length];
        float[] keep = new float[t.length];
        int kept = 0;
        for (int i = 0; i < t.length; i++) {
            if (t[i] == ignoreIndex) continue;
            if (t[i] < 0 || t[i] >= classes) {
                throw new IndexOutOfBoundsException("cross_entropy: target " + t[i] + " at position " + i
                        + " is outside [0, " + classes + ") and is not the ignore index " + ignoreIndex);
            }
            safe[i] = t[i];
            keep[i] = 1f;
            kept++;
        }
        Backend be = logits.backend();
        Tensor rows = logits.reshape(t.length, classes).logSoftmax(-1);
        Tensor index = Tensor.of(be.upload(DType.INT64, safe), t.length, 1);
        Tensor mask = Tensor.of(be.upload(DType.FLOAT32, keep), t.length, 1);
        Tensor picked = rows.gather(1, index).mul(mask);
        // All targets ignored gives NaN, as PyTorch does (0/0).
        return picked.sum().neg().div(kept);
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
