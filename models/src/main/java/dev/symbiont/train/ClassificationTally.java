package dev.symbiont.train;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.Losses;

import java.util.Arrays;

/**
 * Counts a classifier's evaluation: cross-entropy, correct predictions (the arg-max of the
 * logits, first index on ties, as {@code torch.argmax}) and both per class. One batch's
 * {@link #add} is also the {@link EvalScore.Score} a {@link Trainer} reports as accuracy, so the
 * trainer's figure and a later evaluation of the saved model are computed the same way.
 */
public final class ClassificationTally {
    private final long[] correct, total;
    private double lossSum;
    private long examples;

    public ClassificationTally(int classes) {
        if (classes < 1) throw new IllegalArgumentException("ClassificationTally: classes must be positive, got " + classes);
        correct = new long[classes];
        total = new long[classes];
    }

    /** An {@link EvalScore} of one batch's logits against its labels: mean loss, size, correct predictions. */
    public static EvalScore.Score score(Tensor logits, Tensor labels) {
        return new ClassificationTally(Math.toIntExact(logits.size(logits.dim() - 1))).add(logits, labels);
    }

    /**
     * Adds a batch.
     *
     * @param logits (N, classes)
     * @param labels (N) integer classes
     * @return this batch's score
     */
    public EvalScore.Score add(Tensor logits, Tensor labels) {
        if (logits.dim() != 2 || logits.size(1) != correct.length || labels.dim() != 1 || labels.size(0) != logits.size(0)) {
            throw new IllegalArgumentException("ClassificationTally.add: logits must be (N, " + correct.length + ") and labels (N), got "
                    + Arrays.toString(logits.shape()) + " and " + Arrays.toString(labels.shape()));
        }
        double loss = Losses.crossEntropy(logits, labels).item();
        long[] predicted = logits.argmax(1, false).toLongArray(), actual = labels.toLongArray();
        long right = 0;
        for (int i = 0; i < actual.length; i++) {
            int c = (int) actual[i];
            total[c]++;
            if (predicted[i] == actual[i]) {
                correct[c]++;
                right++;
            }
        }
        lossSum += loss * actual.length;
        examples += actual.length;
        return new EvalScore.Score(loss, actual.length, right);
    }

    public long examples() { return examples; }

    /** Mean cross-entropy per example. */
    public double loss() { return lossSum / examples; }

    /** Correct predictions, over all classes. */
    public long correct() { return Arrays.stream(correct).sum(); }

    /** Correct predictions over all examples. */
    public double accuracy() { return (double) correct() / examples; }

    /** Accuracy among the examples labelled {@code c}; NaN when there are none. */
    public double accuracy(int c) { return total[c] == 0 ? Double.NaN : (double) correct[c] / total[c]; }

    /** Examples labelled {@code c}. */
    public long count(int c) { return total[c]; }
}
