package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.io.ConfigPreflight;
import dev.symbiont.io.NonFiniteWeights;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.models.CausalLM;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.text.Tokenizer;
import dev.symbiont.text.Tokenizers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A trained model on disk: {@code model.safetensors} (the state dict, with the model's family
 * and config in its metadata, {@link CausalLM#metadata()}) and {@code tokenizer.json}, both
 * written atomically. Files saved before the family was recorded load as GPT.
 */
final class ModelFiles {
    static final String WEIGHTS = "model.safetensors", TOKENIZER = "tokenizer.json";

    private ModelFiles() {}

    record Loaded(CausalLM model, Tokenizer tokenizer) {}

    static void save(Path dir, CausalLM model, Tokenizer tokenizer) throws IOException {
        Files.createDirectories(dir);
        tokenizer.save(dir.resolve(TOKENIZER));
        Safetensors.write(dir.resolve(WEIGHTS), model.stateDict(), model.metadata());
    }

    /** Loads a model saved by {@link #save}, of the family its metadata names; a config/weights disagreement names every key involved. */
    static Loaded load(Path dir) throws IOException { return load(dir, false); }

    /** As {@link #load(Path)}; {@code allowNonFinite} accepts NaN or infinite weights instead of refusing them. */
    static Loaded load(Path dir, boolean allowNonFinite) throws IOException {
        Path weights = dir.resolve(WEIGHTS);
        if (!Files.exists(weights)) throw new IOException("no model at " + weights + " (train one with `" + RunDirectory.trainCommand(dir, "") + "`)");
        Tokenizer tokenizer = Tokenizers.load(dir.resolve(TOKENIZER));
        SafetensorsHeader header = Safetensors.header(weights);
        CausalLM shape = (CausalLM) ConfigPreflight.check(weights, header, "",
                () -> Architecture.load(header.metadata(), new Generator(0), Gpt.GPT2_INIT_STD));
        if (shape.vocab() != tokenizer.vocabSize()) {
            throw new IllegalArgumentException(weights + ": the model's vocabulary (" + shape.vocab() + ") differs from the tokenizer's ("
                    + tokenizer.vocabSize() + ") in " + dir.resolve(TOKENIZER));
        }
        SafetensorsFile file = Safetensors.read(weights);
        NonFiniteWeights.check(weights, file.tensors(), allowNonFinite);
        CausalLM model = Architecture.load(file.metadata(), new Generator(0), Gpt.GPT2_INIT_STD);
        if (model.vocab() != tokenizer.vocabSize()) {
            throw new IllegalArgumentException(weights + ": the model's vocabulary (" + model.vocab() + ") differs from the tokenizer's ("
                    + tokenizer.vocabSize() + ") in " + dir.resolve(TOKENIZER));
        }
        try {
            model.loadStateDict(file.tensors(), true);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(weights + ": " + e.getMessage(), e);
        }
        return new Loaded(model, tokenizer);
    }
}
