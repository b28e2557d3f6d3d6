package dev.symbiont.peft;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.models.hf.HfCheckpoint;
import dev.symbiont.models.hf.HfLogitsTest;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Tiny random-weight base models in Hugging Face's layout (as the hf tests write them): a
 * two-layer Llama (hidden 32, q_proj 32 → 32, k_proj and v_proj 32 → 16, MLP 40) and a
 * two-layer GPT-2 (n_embd 32).
 */
final class TinyBases {
    private TinyBases() {}

    static Path llamaDir(Path dir) throws IOException { return HfCheckpoint.llama(HfLogitsTest.llamaConfig(), 7).write(dir, 1); }

    static PretrainedModel llama(Path dir) throws IOException { return PretrainedModels.load(llamaDir(dir)); }

    /** GPT-2 whose keys carry {@code prefix} ("transformer." as GPT2LMHeadModel saves, "" as the hub's gpt2 files). */
    static PretrainedModel gpt2(Path dir, String prefix) throws IOException {
        return PretrainedModels.load(HfCheckpoint.gpt2(HfLogitsTest.gpt2Config(), prefix, 8).write(dir, 1));
    }

    /** The model's logits for two fixed sequences of 8 tokens, without gradients, flattened. */
    static float[] logits(CausalLM model) {
        try (var noGrad = GradMode.disabled()) {
            return model.forward(Tensor.fromArray(new long[] {1, 5, 9, 3, 3, 17, 0, 4, 26, 2, 11, 8, 4, 4, 21, 7}, 2, 8)).toFloatArray();
        }
    }

    /** The largest |a − b|. */
    static double maxDiff(float[] a, float[] b) {
        double m = 0;
        for (int i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
        return m;
    }

    /** Gives every adapter's B random values, as training would: the adapters then change the logits. */
    static void train(LoraModel lora, long seed) {
        var g = new dev.symbiont.core.Generator(seed);
        lora.adapters().values().forEach(a -> a.b().update(Tensor.randn(g, a.b().shape()).mul(0.2)));
    }
}
