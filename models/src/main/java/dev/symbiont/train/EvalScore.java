package dev.symbiont.train;

/**
 * Scores one evaluation batch from a single forward pass: its mean loss and a metric beyond the
 * loss, summed over the batch — correct predictions, for a classifier's accuracy. The
 * {@link Trainer} adds the sums over the evaluation batches and divides by the examples, so a
 * last batch smaller than the others counts by its size.
 */
@FunctionalInterface
public interface EvalScore<B> {
    /**
     * @param loss     the batch's mean loss
     * @param examples examples in the batch
     * @param metric   the metric summed over those examples (e.g. how many were classified correctly)
     */
    record Score(double loss, long examples, double metric) {
        public Score {
            if (examples <= 0) throw new IllegalArgumentException("EvalScore.Score: examples must be positive, got " + examples);
        }
    }

    Score score(B batch);
}
