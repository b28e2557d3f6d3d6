package dev.symbiont.cli;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.data.vision.FashionMnist;
import dev.symbiont.data.vision.Split;
import dev.symbiont.train.ClassificationTally;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Evaluates an image classifier saved by {@code train --task fashion-mnist} on the test split:
 * the model is rebuilt from the metadata in its {@code model.safetensors}, and the data is the
 * run's unless {@code --data} names other.
 */
@Command(name = "eval", description = "Evaluate an image classifier trained with --task fashion-mnist on the test split: "
        + "accuracy, per-class accuracy and loss.")
final class EvalCommand implements Runnable {
    @Mixin
    CommonOptions common;

    @Option(names = "--model", defaultValue = "runs/fashion-mnist", description = "Directory written by train (default: ${DEFAULT-VALUE}).")
    Path model;

    @Option(names = "--allow-nonfinite-weights", description = "Load a model whose weights hold NaN or infinite values instead of refusing it.")
    boolean allowNonFinite;

    @Option(names = "--data", paramLabel = "DIR|subset", description = "A directory with the four IDX files, or 'subset' (default: the data the model was trained on).")
    String data;

    @Override
    public void run() { common.run("eval", this::evaluate); }

    private void evaluate(Backend backend) throws IOException {
        ClassifierFiles.Loaded loaded = ClassifierFiles.load(model, allowNonFinite);
        int classes = loaded.model().numClasses(), channels = loaded.model().inChannels();
        if (classes != FashionMnist.CLASSES.size() || channels != 1) {
            throw new IllegalArgumentException(model.resolve(ModelFiles.WEIGHTS) + ": the model takes " + channels + "-channel images into "
                    + classes + " classes; eval's Fashion-MNIST data has 1 channel and " + FashionMnist.CLASSES.size() + " classes");
        }
        ImageData source = ImageData.of(data != null ? data : loaded.metadata().get("data"));
        var test = source.dataset(Split.TEST, common.seed);
        System.out.printf(Locale.ROOT, "eval: %s (width %s, %,d parameters) from %s on %s, %,d test images, on %s%n",
                loaded.metadata().get(ImageArchitecture.ARCHITECTURE), loaded.metadata().get(ImageArchitecture.WIDTH),
                loaded.model().parameterCount(), model.resolve(ModelFiles.WEIGHTS), source.description(), test.size(), backend.device());
        ClassificationTally t = ClassifierEvaluation.run(loaded.model(), ClassifierEvaluation.loader(test), FashionMnist.CLASSES.size());
        System.out.println("eval: test " + ClassifierEvaluation.summary(t));
        System.out.print(ClassifierEvaluation.perClass(t, FashionMnist.CLASSES));
    }
}
