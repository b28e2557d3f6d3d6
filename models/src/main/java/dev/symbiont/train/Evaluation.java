package dev.symbiont.train;

import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.HostTransfer;
import dev.symbiont.data.Batches;
import dev.symbiont.data.DataLoader;
import dev.symbiont.nn.Module;

import java.util.function.BooleanSupplier;

/**
 * The trainer's evaluation: {loss, metric} over the first {@code batches} batches of the eval
 * loader's epoch 0, in eval mode without gradients. With an {@link EvalScore} both are per
 * example, otherwise the loss is the mean over batches and the metric NaN. In data-parallel
 * training rank r evaluates batches r, r + size, … and the sums are all-reduced, so every rank
 * gets the numbers one rank evaluating them all would (up to the order of a few additions).
 */
final class Evaluation<B> {
    private final Module model;
    private final DataLoader<?, B> loader;
    private final Trainer.LossFunction<B> loss;
    private final EvalScore<B> score;
    private final int batches;
    private final DistributedRun run;

    Evaluation(Module model, DataLoader<?, B> loader, Trainer.LossFunction<B> loss, EvalScore<B> score, int batches, DistributedRun run) {
        this.model = model;
        this.loader = loader;
        this.loss = loss;
        this.score = score;
        this.batches = batches;
        this.run = run;
    }

    /**
     * {loss, metric}; null when {@code stopNow} turned true on some rank, which ends that rank's
     * share after its current batch. Every rank calls it.
     */
    double[] run(BooleanSupplier stopNow) {
        run.broadcastBuffers(); // the running statistics batch norm evaluates with, rank 0's everywhere
        model.eval();
        double lossSum = 0, metric = 0, weight = 0, count = 0, stopped = 0;
        int limit = Math.min(batches, loader.batchesPerEpoch()), stride = run.size();
        // Evaluation reads each batch's loss and score to the host: a deliberate transfer. One rank iterates the epoch
        // (with the loader's prefetch); several take their batches by index.
        try (var noGrad = GradMode.disabled(); var read = HostTransfer.EVALUATION.allow();
             Batches<B> sequence = stride == 1 ? loader.epoch(0) : null) {
            for (int i = run.rank(); i < limit; i += stride) {
                if (stopNow.getAsBoolean()) {
                    stopped = 1;
                    break;
                }
                B batch = sequence != null ? sequence.next() : loader.batch(0, i);
                if (score == null) {
                    lossSum += loss.loss(batch).item();
                    weight++;
                } else {
                    EvalScore.Score s = score.score(batch);
                    lossSum += s.loss() * s.examples();
                    metric += s.metric();
                    weight += s.examples();
                }
                count++;
            }
        } finally {
            model.train();
        }
        double[] total = run.sum(new double[] {lossSum, metric, weight, count, stopped});
        if (total[4] > 0) return null;
        if (total[3] == 0) throw new IllegalStateException("Trainer.evaluate: the eval loader yields no batch (dataset smaller than a batch with drop-last?)");
        return new double[] {total[0] / total[2], score == null ? Double.NaN : total[1] / total[2]};
    }
}
