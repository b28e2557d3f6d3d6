package dev.symbiont.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.io.ConfigPreflight;
import dev.symbiont.io.NonFiniteWeights;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.models.gpt.Gpt;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Symbiont's own model directory, as {@code symbiont train} writes it: {@code model.safetensors},
 * the state dict with the model's family and config in its metadata ({@link CausalLM#metadata()}),
 * beside the run's tokenizer and checkpoint. Loading checks the config against the tensors on the
 * meta device before anything of the config's size exists ({@link ConfigPreflight}), refuses
 * non-finite weights unless allowed, then loads strictly.
 */
public final class SymbiontModelDirectory {
    /** The weights file. */
    public static final String WEIGHTS = "model.safetensors";
    /** This layout, for {@link PretrainedModel#save}. */
    public static final ModelLayout LAYOUT = new ModelLayout() {
        @Override public void save(CausalLM model, Path dir) throws IOException { SymbiontModelDirectory.save(dir, model); }

        @Override public String describe() { return "symbiont"; }
    };

    private SymbiontModelDirectory() {}

    /** Whether {@code dir} holds a weights file whose metadata describes a Symbiont language model. */
    public static boolean holds(Path dir) throws IOException {
        Path weights = dir.resolve(WEIGHTS);
        return Files.isRegularFile(weights) && CausalLMs.describes(Safetensors.header(weights).metadata());
    }

    /** Writes {@code model}'s state dict and metadata to {@code dir/model.safetensors}, atomically. */
    public static void save(Path dir, CausalLM model) throws IOException {
        Files.createDirectories(dir);
        Safetensors.write(dir.resolve(WEIGHTS), model.stateDict(), model.metadata());
    }

    /**
     * The model the directory's metadata describes, built on the meta device (shapes, no data)
     * after its config was checked against the tensors: what a caller compares with a tokenizer
     * before the weights are read.
     *
     * @throws IOException when there is no weights file or it cannot be read
     * @throws IllegalArgumentException naming the file, the key and the shapes when config and tensors disagree
     */
    public static CausalLM shape(Path dir) throws IOException {
        Path weights = dir.resolve(WEIGHTS);
        if (!Files.exists(weights)) throw new IOException("no model at " + weights);
        SafetensorsHeader header = Safetensors.header(weights);
        return (CausalLM) ConfigPreflight.check(weights, header, "",
                () -> CausalLMs.fromMetadata(header.metadata(), new Generator(0), Gpt.GPT2_INIT_STD));
    }

    /** Loads the directory's model onto the options' backend, in eval mode. */
    public static PretrainedModel load(Path dir, LoadOptions options) throws IOException {
        shape(dir);
        Path weights = dir.resolve(WEIGHTS);
        SafetensorsFile file = Safetensors.read(weights, options.target());
        NonFiniteWeights.check(weights, file.tensors(), options.allowNonFinite());
        CausalLM model;
        try (var on = Backends.use(options.target())) {
            model = CausalLMs.fromMetadata(file.metadata(), new Generator(0), Gpt.GPT2_INIT_STD);
        }
        try {
            model.loadStateDict(file.tensors(), true);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(weights + ": " + e.getMessage(), e);
        }
        model.eval();
        return new PretrainedModel(model, GenerationConfig.DEFAULT, dir, LAYOUT);
    }
}
