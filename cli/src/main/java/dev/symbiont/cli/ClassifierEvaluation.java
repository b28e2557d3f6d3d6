package dev.symbiont.cli;

import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.data.Batches;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.vision.ImageBatch;
import dev.symbiont.data.vision.ImageDataset;
import dev.symbiont.data.vision.ImageExample;
import dev.symbiont.models.ImageClassifier;
import dev.symbiont.train.ClassificationTally;

import java.util.List;
import java.util.Locale;

/** A classifier's accuracy, per-class accuracy and loss over a whole split, in eval mode without gradients. */
final class ClassifierEvaluation {
    /** Images per evaluation batch: evaluation keeps no activations for backward, so it can take more than a training batch. */
    static final int BATCH = 250;

    private ClassifierEvaluation() {}

    /** The split in order, in batches of {@link #BATCH}, the last one possibly smaller. */
    static DataLoader<ImageExample, ImageBatch> loader(ImageDataset split) {
        return DataLoader.builder(split, ImageExample::collate).batchSize(BATCH).noShuffle().name("test").build();
    }

    /** Every batch of {@code loader} through the model; the model is left in the mode it was in. */
    static ClassificationTally run(ImageClassifier model, DataLoader<ImageExample, ImageBatch> loader, int classes) {
        boolean training = model.isTraining();
        model.eval();
        ClassificationTally tally = new ClassificationTally(classes);
        try (var noGrad = GradMode.disabled(); Batches<ImageBatch> batches = loader.epoch(0)) {
            while (batches.hasNext()) {
                ImageBatch b = batches.next();
                tally.add(model.forward(b.images()), b.labels());
            }
        } finally {
            if (training) model.train();
        }
        return tally;
    }

    /** "accuracy 0.8730 (873/1000), loss 0.3561". */
    static String summary(ClassificationTally t) {
        return String.format(Locale.ROOT, "accuracy %.4f (%d/%d), loss %.4f", t.accuracy(), t.correct(),
                t.examples(), t.loss());
    }

    /** One line per class: name, accuracy, examples. */
    static String perClass(ClassificationTally t, List<String> classNames) {
        StringBuilder s = new StringBuilder();
        for (int c = 0; c < classNames.size(); c++) {
            s.append(String.format(Locale.ROOT, "  %-12s %.4f (%d images)%n", classNames.get(c), t.accuracy(c), t.count(c)));
        }
        return s.toString();
    }
}
