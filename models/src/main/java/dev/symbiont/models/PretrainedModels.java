package dev.symbiont.models;

import dev.symbiont.models.hf.HfModelDirectory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The one way to open a saved language model, whichever layout its directory has:
 * <pre>
 *   PretrainedModel p = PretrainedModels.load(Path.of("Llama-3.2-1B"));
 *   long[] ids = p.generate(prompt, new Generator(0));      // generation_config.json's sampling, stops at EOS
 *   p.save(Path.of("copy"));                                 // the same files, keys, dtypes and shards
 * </pre>
 * A directory with a {@code config.json} is a Hugging Face model ({@link HfModelDirectory}: Llama,
 * Mistral, Qwen2, Mixtral, GPT-2, Mamba); one whose {@code model.safetensors} carries Symbiont's metadata is a
 * run {@code symbiont train} wrote ({@link SymbiontModelDirectory}: GPT, MoE GPT, Mamba).
 */
public final class PretrainedModels {
    private PretrainedModels() {}

    /** Loads the model in {@code dir} onto the current backend, refusing non-finite weights. */
    public static PretrainedModel load(Path dir) throws IOException { return load(dir, LoadOptions.defaults()); }

    /**
     * Loads the model in {@code dir} as {@code options} say.
     *
     * @throws IOException when the directory or a file cannot be read, or holds no model Symbiont knows
     * @throws IllegalArgumentException naming the file and the field or key when a config asks for
     *         what Symbiont cannot run or contradicts the tensors
     */
    public static PretrainedModel load(Path dir, LoadOptions options) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException(dir + (Files.exists(dir) ? " is a file" : " does not exist") + "; a model is a directory");
        }
        if (HfModelDirectory.holds(dir)) return HfModelDirectory.load(dir, options);
        if (SymbiontModelDirectory.holds(dir)) return SymbiontModelDirectory.load(dir, options);
        throw new IOException(dir + " holds no model: neither a Hugging Face " + HfModelDirectory.CONFIG + " nor a "
                + SymbiontModelDirectory.WEIGHTS + " with Symbiont's metadata");
    }
}
