package dev.symbiont.models.hf;

import dev.symbiont.core.DType;
import dev.symbiont.io.TensorInfo;
import dev.symbiont.models.CausalLM;
import dev.symbiont.nn.Embedding;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.moe.MoeFeedForward;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A bfloat16 checkpoint's matrices kept in bfloat16 after loading (transformers' {@code
 * torch_dtype="auto"}): the weights of Linear and Embedding layers, which the linear kernels
 * and the embedding lookup widen where they compute. They are most of a model's bytes and a
 * decoding step reads each once, so keeping them halves the memory and the traffic per token.
 * Norm weights, biases, experts' stacks and Mamba's other parameters are small or read by ops
 * that take float32, and stay widened; float16 checkpoints are widened whole (no kernel streams
 * float16 weights).
 */
final class StoredPrecision {
    private StoredPrecision() {}

    /**
     * Casts each Linear or Embedding weight whose stored tensor is bfloat16 back to bfloat16.
     *
     * @param loaded the checkpoint's tensors by Hugging Face key, as preflight read their headers
     */
    static void keep(CausalLM model, KeyMap keys, Map<String, TensorInfo> loaded) {
        Map<String, DType> stored = new HashMap<>();
        loaded.forEach((key, info) -> {
            KeyMap.Mapped to = keys.toSymbiont(key);
            if (to != null) stored.put(to.key(), info.dtype());
        });
        List<String> experts = new ArrayList<>();
        model.namedModules().forEach((prefix, module) -> {
            if (module instanceof MoeFeedForward) experts.add(prefix + ".");
            Parameter weight = matrix(module);
            String key = prefix.isEmpty() ? "weight" : prefix + ".weight";
            // experts' projections are stacked for the grouped GEMM, which takes float32
            boolean expert = experts.stream().anyMatch(prefix::startsWith);
            if (weight != null && !expert && stored.get(key) == DType.BFLOAT16) weight.castTo(DType.BFLOAT16);
        });
    }

    private static Parameter matrix(Module m) {
        if (m instanceof Linear l) return l.weight();
        if (m instanceof Embedding e) return e.weight();
        return null;
    }
}
