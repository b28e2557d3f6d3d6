package dev.symbiont.models.hf;

import dev.symbiont.core.DType;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.io.NonFiniteWeights;
import dev.symbiont.io.Safetensors;
import dev.symbiont.models.CausalLM;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Loads a checked checkpoint into its model one tensor at a time: each shard is memory-mapped and
 * each tensor uploaded, widened to float32, renamed (a Conv1D weight transposed), copied into its
 * parameter and released before the next ({@link Safetensors#forEachTensor}), so loading holds the
 * model and one tensor of the checkpoint, never a shard or the checkpoint twice. A tied copy the
 * file also holds (an {@code lm_head.weight} beside its embedding) is compared with the weight it
 * is tied to, not loaded.
 */
final class HfWeightLoader {
    private HfWeightLoader() {}

    static void load(CausalLM model, WeightFiles files, HfModelPlan plan, Backend backend, boolean allowNonFinite) throws IOException {
        Map<String, TiedCopy> tiedCopies = new LinkedHashMap<>();
        for (String shard : files.shards().keySet()) {
            Path file = files.path(shard);
            Safetensors.forEachTensor(file, backend, DType.FLOAT32, (key, t) -> {
                if (plan.ignored().test(key)) return;
                NonFiniteWeights.check(file, Map.of(key, t), allowNonFinite);
                KeyMap.Mapped to = plan.keys().toSymbiont(key);
                if (plan.optional().contains(key)) {
                    tiedCopies.put(key, new TiedCopy(file, t.clone()));
                    return;
                }
                try {
                    model.loadStateDict(Map.of(to.key(), to.transposed() ? t.t() : t), false);    // copies t into the parameter
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(file + ": " + e.getMessage(), e);
                }
            });
        }
        checkTiedCopies(model, plan, tiedCopies);
    }

    /** A tied weight's copy as a file holds it. */
    private record TiedCopy(Path file, Tensor value) {}

    /** Each tied copy in the file equals the weight it is tied to, as loaded; otherwise which to keep would be a guess. */
    private static void checkTiedCopies(CausalLM model, HfModelPlan plan, Map<String, TiedCopy> copies) {
        Map<String, Tensor> state = model.stateDict();
        for (var e : copies.entrySet()) {
            Tensor loaded = state.get(plan.keys().toSymbiont(e.getKey()).key());
            boolean same;
            try (var noGrad = GradMode.disabled(); var read = HostTransfer.CHECKPOINT.allow()) {
                same = loaded.eq(e.getValue().value()).mean().item() == 1.0;
            }
            if (!same) {
                throw new IllegalArgumentException(e.getValue().file() + ": '" + e.getKey() + "' is tied to the token embedding "
                        + "(tie_word_embeddings) but holds other values; refusing to guess which to keep");
            }
        }
    }
}
