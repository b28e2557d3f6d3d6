package dev.symbiont.io;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.HostTransfer;

import java.nio.file.Path;
import java.util.Map;

/**
 * Refuses weights no trained model has: a NaN or infinite value in any floating tensor, or a
 * negative batch-norm running variance. A model that loads them would only fail later, far from
 * the file (a sampler's "logit 0 is NaN"); the user may ask to load them anyway.
 */
public final class NonFiniteWeights {
    private NonFiniteWeights() {}

    /** Throws naming {@code file} and the first bad key, unless {@code allow}; one host read per tensor. */
    public static void check(Path file, Map<String, Tensor> tensors, boolean allow) {
        if (allow) return;
        try (var read = HostTransfer.CHECKPOINT.allow()) {
            for (var e : tensors.entrySet()) {
                Tensor t = e.getValue();
                if (!t.dtype().isFloating() || t.numel() == 0) continue;
                Tensor x = t.dtype() == DType.FLOAT32 ? t : t.to(DType.FLOAT32);
                if (Double.isNaN(x.mul(0.0).sum().item())) {    // x·0 is NaN exactly where x is NaN or infinite
                    throw new IllegalArgumentException(file + ": tensor '" + e.getKey() + "' holds NaN or infinite values "
                            + "(refused; load with non-finite weights allowed to read it anyway)");
                }
                if (e.getKey().endsWith("running_var") && x.neg().relu().sum().item() > 0) {
                    throw new IllegalArgumentException(file + ": tensor '" + e.getKey() + "' holds a negative running variance");
                }
            }
        }
    }
}
