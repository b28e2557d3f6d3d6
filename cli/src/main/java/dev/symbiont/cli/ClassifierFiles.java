package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.io.ConfigPreflight;
import dev.symbiont.io.NonFiniteWeights;
import dev.symbiont.io.Safetensors;
import dev.symbiont.io.SafetensorsHeader;
import dev.symbiont.io.SafetensorsFile;
import dev.symbiont.models.ImageClassifier;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * A trained image classifier on disk: {@code model.safetensors}, the state dict (batch-norm
 * buffers included) with the {@link ImageArchitecture} metadata that rebuilds the model.
 */
final class ClassifierFiles {
    private ClassifierFiles() {}

    record Loaded(ImageClassifier model, Map<String, String> metadata) {}

    static void save(Path dir, ImageClassifier model, Map<String, String> metadata) throws IOException {
        Files.createDirectories(dir);
        Safetensors.write(dir.resolve(ModelFiles.WEIGHTS), model.stateDict(), metadata);
    }

    /** Loads a model saved by {@link #save}, in eval mode; a key or shape that disagrees with the metadata's model is named. */
    static Loaded load(Path dir) throws IOException { return load(dir, false); }

    /** As {@link #load(Path)}; {@code allowNonFinite} accepts NaN or infinite weights instead of refusing them. */
    static Loaded load(Path dir, boolean allowNonFinite) throws IOException {
        Path weights = dir.resolve(ModelFiles.WEIGHTS);
        if (!Files.exists(weights)) {
            throw new IOException("no model at " + weights + " (train one with `" + RunDirectory.trainCommand(dir, "--task fashion-mnist ") + "`)");
        }
        SafetensorsHeader header = Safetensors.header(weights);
        ConfigPreflight.check(weights, header, "", () -> ImageArchitecture.load(header.metadata(), new Generator(0)));
        SafetensorsFile file = Safetensors.read(weights);
        NonFiniteWeights.check(weights, file.tensors(), allowNonFinite);
        ImageClassifier model;
        try {
            model = ImageArchitecture.load(file.metadata(), new Generator(0));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(weights + ": " + e.getMessage(), e);
        }
        try {
            model.loadStateDict(file.tensors(), true);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(weights + ": " + e.getMessage(), e);
        }
        model.eval();
        return new Loaded(model, file.metadata());
    }
}
