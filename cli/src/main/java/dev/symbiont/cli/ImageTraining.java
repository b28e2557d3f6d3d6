package dev.symbiont.cli;

import dev.symbiont.core.Generator;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.vision.FashionMnist;
import dev.symbiont.data.vision.ImageBatch;
import dev.symbiont.data.vision.ImageDataset;
import dev.symbiont.data.vision.ImageExample;
import dev.symbiont.data.vision.Split;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.train.ClassificationTally;
import dev.symbiont.train.NonFiniteException;
import dev.symbiont.train.Trainer;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * {@code train --task fashion-mnist}: an image classifier trained with SGD or AdamW
 * ({@link ImageOptimizer}) on augmented Fashion-MNIST, its test accuracy reported at every
 * evaluation and over the whole test split at the end, written into the run directory as the
 * char-LM run is (checkpoint, metrics, model).
 */
final class ImageTraining {
    /** Periodic evaluations look at this many test images at most (all of the subset's 1,000); the final one at all. */
    static final int EVAL_IMAGES = 2000;
    static final int CHANNELS = 1;

    private ImageTraining() {}

    /** 0.0005 rather than 5.0E-4. */
    private static String plain(double x) { return new BigDecimal(Double.toString(x)).stripTrailingZeros().toPlainString(); }

    static void run(Backend backend, RunSettings settings, boolean resuming, Path out, double minutes, CtrlC ctrlC, int skipNonFinite,
                    TrainRanks ranks) throws IOException {
        ImageData data = ImageData.of(settings.text("data"));
        long seed = settings.seed();
        // A run saved before --crop-padding existed cropped with Fashion-MNIST's padding 2, and resumes so.
        int cropPadding = Integer.parseInt(settings.text("crop_padding", Integer.toString(FashionMnist.CROP_PADDING)));
        ImageDataset train = data.trainingSet(cropPadding, seed), test = data.dataset(Split.TEST, seed);
        int classes = FashionMnist.CLASSES.size();
        System.out.printf(Locale.ROOT, "train: fashion-mnist on %s: %,d training images (augmented: %s), %,d test images%n",
                data.description(), train.size(), cropPadding == 0 ? "flip" : "crop with padding " + cropPadding + " and flip", test.size());

        ImageArchitecture arch = ImageArchitecture.parse(settings.text("arch"));
        int width = settings.integer("width");
        ImageClassifier model = arch.build(width, CHANNELS, classes, new Generator(seed));
        Map<String, String> modelMetadata = new LinkedHashMap<>(arch.metadata(width, CHANNELS, classes));
        modelMetadata.put("task", ImageOptions.TASK);
        modelMetadata.put("data", data.setting());
        int steps = settings.steps(), batch = settings.batch();
        double lr = settings.lr();
        // A run saved before --label-smoothing and --optimizer existed trained with AdamW (decay 0.05) and no smoothing, and resumes so.
        double labelSmoothing = Double.parseDouble(settings.text("label_smoothing", "0"));
        ImageOptimizer kind = ImageOptimizer.parse(settings.text("optimizer", ImageOptimizer.ADAMW.flag()));
        double weightDecay = Double.parseDouble(settings.text("weight_decay", Double.toString(kind.defaultWeightDecay())));
        Optimizer optimizer = kind.create(model, lr, weightDecay);
        var trainLoader = ranks.shard(DataLoader.builder(train, ImageExample::collate), batch)
                .shuffle(seed).dropLast(true).prefetch(2).name("train").build();
        var testLoader = ClassifierEvaluation.loader(test);
        int evalBatches = Math.max(1, Math.min(testLoader.batchesPerEpoch(), EVAL_IMAGES / ClassifierEvaluation.BATCH));
        System.out.printf(Locale.ROOT, "train: %s (width %d) with %,d parameters on %s; %d steps of %s images, at most %.1f minutes; "
                        + "%s lr %s, weight decay %s, label smoothing %s; test accuracy every %d steps on %,d images%s%n", arch.flag(), width,
                model.parameterCount(), backend.device(), steps, ranks.describe(batch), minutes, kind.flag(), plain(lr), plain(weightDecay),
                plain(labelSmoothing), settings.evalEvery(), Math.min(test.size(), evalBatches * ClassifierEvaluation.BATCH), ranks.computeThreads());

        // The summary is printed before the Ctrl-C scope closes: a shutdown in progress waits for it.
        try (var interrupts = ctrlC.install()) {
            var builder = Trainer.builder(model, optimizer, trainLoader, (ImageBatch b) -> model.loss(b.images(), b.labels(), labelSmoothing));
            Trainer.Result result = ranks.distribute(builder, model)
                    .schedule(LrSchedule.warmupCosine(lr, lr / 100, Math.min(100, steps / 10), steps))
                    .eval(testLoader, "accuracy", b -> ClassificationTally.score(model.forward(b.images()), b.labels()))
                    .tokensPerBatch(b -> b.images().size(0))
                    .throughputUnit("img")
                    .cancellation(ctrlC.cancellation())
                    .checkpointMetadata(settings.toMetadata(modelMetadata))
                    .onCheckpoint(step -> ClassifierFiles.save(out, model, modelMetadata))
                    .config(RunDirectory.trainerConfig(out, steps, settings.evalEvery(), evalBatches, resuming, minutes, skipNonFinite))
                    .build()
                    .fit();
            // A second Ctrl-C asked to stop now: the whole test split is not read either. Only rank 0 reports it.
            if (!ranks.leader()) return;
            String accuracy = ctrlC.cancellation().now() ? "test accuracy not measured (stopped at once)"
                    : "test " + ClassifierEvaluation.summary(ClassifierEvaluation.run(model, testLoader, classes));
            System.out.printf(Locale.ROOT, "train: %s; %s; model saved to %s%n", RunEnd.stepsTaken(result), accuracy, out.resolve(ModelFiles.WEIGHTS));
            RunEnd.printInterrupted(result, steps, out);
            System.out.flush();
        } catch (NonFiniteException e) {
            throw RunEnd.nonFinite(e, out);
        }
    }
}
