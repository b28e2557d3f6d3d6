package dev.symbiont.cli;

import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.text.Tokenizer;
import dev.symbiont.text.Tokenizers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A trained model on disk: {@code model.safetensors} (the state dict, with the GPT config in
 * its metadata) and {@code tokenizer.json}, both written atomically.
 */
final class ModelFiles {
    static final String WEIGHTS = "model.safetensors", TOKENIZER = "tokenizer.json";

    private ModelFiles() {}

    record Loaded(Gpt model, Tokenizer tokenizer) {}

    static void save(Path dir, Gpt model, Tokenizer tokenizer) throws IOException {
        Files.createDirectories(dir);
        tokenizer.save(dir.resolve(TOKENIZER));
        Safetensors.write(dir.resolve(WEIGHTS), model.stateDict(), model.config().toMap());
    }

    /** Loads a model saved by {@link #save}; a config/weights disagreement names every key involved. */
    static Loaded load(Path dir) throws IOException {
        Path weights = dir.resolve(WEIGHTS);
        if (!Files.exists(weights)) throw new IOException("no model at " + weights + " (train one with `symbiont train --out " + dir + "`)");
        Tokenizer tokenizer = Tokenizers.load(dir.resolve(TOKENIZER));
        SafetensorsFile file = Safetensors.read(weights);
        GptConfig config = GptConfig.fromMap(file.metadata());
        if (config.vocab() != tokenizer.vocabSize()) {
            throw new IllegalArgumentException(weights + ": the model's vocabulary (" + config.vocab() + ") differs from the tokenizer's ("
                    + tokenizer.vocabSize() + ") in " + dir.resolve(TOKENIZER));
        }
        Gpt model = new Gpt(config, new dev.symbiont.core.Generator(0));
        model.loadStateDict(file.tensors(), true);
        return new Loaded(model, tokenizer);
    }
}
