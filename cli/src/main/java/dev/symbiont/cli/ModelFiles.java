package dev.symbiont.cli;

import dev.symbiont.models.CausalLM;
import dev.symbiont.models.LoadOptions;
import dev.symbiont.models.ModelLayout;
import dev.symbiont.models.PretrainedModel;
import dev.symbiont.models.PretrainedModels;
import dev.symbiont.models.SymbiontModelDirectory;
import dev.symbiont.models.hf.HfModelDirectory;
import dev.symbiont.text.Tokenizer;
import dev.symbiont.text.Tokenizers;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A trained model on disk: {@code model.safetensors} (Symbiont's model directory,
 * {@link SymbiontModelDirectory}) and {@code tokenizer.json}, both written atomically. Loading
 * goes through {@link PretrainedModels}, which opens Hugging Face directories too; those are used
 * here only when their tokenizer.json is one Symbiont reads.
 */
final class ModelFiles {
    static final String WEIGHTS = SymbiontModelDirectory.WEIGHTS, TOKENIZER = "tokenizer.json";

    private ModelFiles() {}

    /** A loaded model, its tokenizer, and the layout its files had (which names its modules for adapters and saves it back). */
    record Loaded(CausalLM model, Tokenizer tokenizer, ModelLayout layout) {}

    static void save(Path dir, CausalLM model, Tokenizer tokenizer) throws IOException {
        Files.createDirectories(dir);
        tokenizer.save(dir.resolve(TOKENIZER));
        SymbiontModelDirectory.save(dir, model);
    }

    /** Loads a model saved by {@link #save}, of the family its metadata names; a config/weights disagreement names every key involved. */
    static Loaded load(Path dir) throws IOException { return load(dir, false); }

    /** As {@link #load(Path)}; {@code allowNonFinite} accepts NaN or infinite weights instead of refusing them. */
    static Loaded load(Path dir, boolean allowNonFinite) throws IOException {
        LoadOptions options = LoadOptions.defaults().allowingNonFinite(allowNonFinite);
        if (HfModelDirectory.holds(dir)) return loadHuggingFace(dir, options);
        Path weights = dir.resolve(WEIGHTS);
        if (!Files.exists(weights)) throw new IOException("no model at " + weights + " (train one with `" + RunDirectory.trainCommand(dir, "") + "`)");
        Tokenizer tokenizer = Tokenizers.load(dir.resolve(TOKENIZER));
        checkVocab(weights, SymbiontModelDirectory.shape(dir), tokenizer, dir);    // on the meta device: before the weights are read
        PretrainedModel p = PretrainedModels.load(dir, options);
        checkVocab(weights, p.model(), tokenizer, dir);
        return new Loaded(p.model(), tokenizer, p.layout());
    }

    /** A Hugging Face directory, when its tokenizer.json is one Symbiont reads (checked before the weights are). */
    private static Loaded loadHuggingFace(Path dir, LoadOptions options) throws IOException {
        Tokenizer tokenizer;
        try {
            tokenizer = Tokenizers.load(dir.resolve(TOKENIZER));
        } catch (IOException e) {
            throw new IllegalArgumentException(dir + " is a Hugging Face model directory, whose tokenizer Symbiont cannot read yet: "
                    + e.getMessage(), e);
        }
        PretrainedModel p = PretrainedModels.load(dir, options);
        if (tokenizer.vocabSize() > p.model().vocab()) {
            throw new IllegalArgumentException(dir.resolve(TOKENIZER) + ": the tokenizer's vocabulary (" + tokenizer.vocabSize()
                    + ") exceeds the model's (" + p.model().vocab() + ")");
        }
        return new Loaded(p.model(), tokenizer, p.layout());
    }

    private static void checkVocab(Path weights, CausalLM model, Tokenizer tokenizer, Path dir) {
        if (model.vocab() != tokenizer.vocabSize()) {
            throw new IllegalArgumentException(weights + ": the model's vocabulary (" + model.vocab() + ") differs from the tokenizer's ("
                    + tokenizer.vocabSize() + ") in " + dir.resolve(TOKENIZER));
        }
    }
}
