package dev.symbiont.models;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.data.tasks.SequenceBatch;
import dev.symbiont.data.tasks.SequenceExample;
import dev.symbiont.data.tasks.SequenceTask;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.GradClip;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.Optimizer;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The learning tests' loop for any {@link CausalLM} on a synthetic {@link SequenceTask}: AdamW
 * (weight decay 0.01 on the model's {@link CausalLM#parameterGroups}), warmup-cosine lr, clipping at 1, consecutive
 * batches of {@code batch} examples, the model's {@link CausalLM#auxiliaryLoss} added when it has one; accuracy is the argmax at the scored positions of the
 * whole held-out task.
 */
public final class SequenceTaskTraining {
    private SequenceTaskTraining() {}

    /** Trains {@code model} for {@code steps} steps on {@code train}; returns its accuracy on {@code eval}. */
    public static double train(CausalLM model, SequenceTask train, SequenceTask eval, int steps, int batch, double lr) {
        long start = System.nanoTime();
        Optimizer optimizer = new AdamW(model.parameterGroups(0.01), AdamW.options(lr));
        LrSchedule schedule = LrSchedule.warmupCosine(lr, lr / 10, steps / 10, steps);
        float loss = Float.NaN;
        for (int step = 0; step < steps; step++) {
            SequenceBatch b = batch(train, step * batch, batch);
            schedule.applyTo(optimizer, step);
            Tensor l = model.loss(b.input(), b.target());
            Tensor aux = model.auxiliaryLoss();                     // an MoE router's balancing loss, null for dense
            (aux == null ? l : l.add(aux)).backward();
            GradClip.clipGradNorm(model.trainableParameters(), 1.0);
            optimizer.step();
            optimizer.zeroGrad();
            loss = l.item();
        }
        double accuracy = accuracy(model, eval);
        System.out.printf(Locale.ROOT, "%s on %s: %d steps, last loss %.4f, accuracy %.4f, %.1f s%n", model.getClass().getSimpleName(),
                train.getClass().getSimpleName(), steps, loss, accuracy, (System.nanoTime() - start) / 1e9);
        return accuracy;
    }

    /** Examples start, start+1, ... (wrapping) collated into (size, seq) inputs and targets. */
    public static SequenceBatch batch(SequenceTask task, int start, int size) {
        List<SequenceExample> examples = new ArrayList<>();
        for (int i = 0; i < size; i++) examples.add(task.get((start + i) % task.size()));
        return SequenceExample.collate(examples);
    }

    /** Fraction of scored positions of the whole of {@code eval} where the argmax logit is the target. */
    public static double accuracy(CausalLM model, SequenceTask eval) {
        model.eval();
        int correct = 0, scored = 0;
        try (var noGrad = GradMode.disabled()) {
            SequenceBatch b = batch(eval, 0, eval.size());
            long[] predicted = model.forward(b.input()).argmax(-1, false).toLongArray();
            long[] target = b.target().toLongArray();
            for (int i = 0; i < target.length; i++) {
                if (target[i] == SequenceExample.IGNORE) continue;
                scored++;
                if (predicted[i] == target[i]) correct++;
            }
        } finally {
            model.train();
        }
        return (double) correct / scored;
    }
}
