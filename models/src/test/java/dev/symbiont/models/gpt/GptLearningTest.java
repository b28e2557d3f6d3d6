package dev.symbiont.models.gpt;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.data.tasks.AssociativeRecallTask;
import dev.symbiont.data.tasks.InductionHeadsTask;
import dev.symbiont.data.tasks.SequenceBatch;
import dev.symbiont.data.tasks.SequenceExample;
import dev.symbiont.data.tasks.SequenceTask;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.GradClip;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.ParamGroup;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** A 2-layer GPT learns the synthetic recall tasks with fixed seeds and step counts. */
class GptLearningTest {
    static int STEPS = Integer.getInteger("steps", 400);
    static int BATCH = Integer.getInteger("batch", 32);
    static int SEQ = Integer.getInteger("seq", 16);
    static int VOCAB = Integer.getInteger("vocab", 16);
    static int D = Integer.getInteger("d", 32);
    static double LR = Double.parseDouble(System.getProperty("lr", "3e-3"));
    static String POS = System.getProperty("pos", "LEARNED");

    @Test
    void should_solve_induction_heads() {
        var task = new InductionHeadsTask(VOCAB, SEQ, 1_000_000, 1);
        var eval = new InductionHeadsTask(VOCAB, SEQ, 512, 2);
        GptConfig c = GptConfig.of(VOCAB, D, 2, 2, SEQ).withPositions(PositionKind.valueOf(POS));
        double acc = train(c, task, eval, STEPS, BATCH, LR);
        assertTrue(acc >= 0.95, "induction heads accuracy " + acc);
    }

    @Test
    void should_solve_associative_recall() {
        var task = new AssociativeRecallTask(VOCAB + 1, 4, 4, SEQ, 1_000_000, 1);
        var eval = new AssociativeRecallTask(VOCAB + 1, 4, 4, SEQ, 512, 2);
        GptConfig c = GptConfig.of(VOCAB + 1, D, 2, 2, SEQ).withPositions(PositionKind.valueOf(POS));
        double acc = train(c, task, eval, STEPS, BATCH, LR);
        assertTrue(acc >= 0.95, "associative recall accuracy " + acc);
    }

    static double train(GptConfig c, SequenceTask task, SequenceTask eval, int steps, int batch, double lr) {
        long t0 = System.nanoTime();
        Gpt model = new Gpt(c, new Generator(7));
        Optimizer opt = new AdamW(ParamGroup.splitDecay(model, 0.01), AdamW.options(lr));
        LrSchedule schedule = LrSchedule.warmupCosine(lr, lr / 10, steps / 10, steps);
        for (int step = 0; step < steps; step++) {
            SequenceBatch b = batch(task, step * batch, batch);
            schedule.applyTo(opt, step);
            Tensor loss = model.loss(b.input(), b.target());
            loss.backward();
            GradClip.clipGlobalNorm(model.trainableParameters(), 1.0);
            opt.step();
            opt.zeroGrad();
            if (step % 100 == 0 || step == steps - 1) {
                System.out.printf("step %d loss %.4f acc %.3f (%.1fs)%n", step, loss.item(), accuracy(model, eval), (System.nanoTime() - t0) / 1e9);
            }
        }
        double acc = accuracy(model, eval);
        System.out.printf("%s: %d steps, accuracy %.4f in %.1f s%n", task.getClass().getSimpleName(), steps, acc, (System.nanoTime() - t0) / 1e9);
        return acc;
    }

    static SequenceBatch batch(SequenceTask task, int start, int size) {
        List<SequenceExample> list = new ArrayList<>();
        for (int i = 0; i < size; i++) list.add(task.get((start + i) % task.size()));
        return SequenceExample.collate(list);
    }

    /** Fraction of scored positions where the argmax logit is the target. */
    static double accuracy(Gpt model, SequenceTask eval) {
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
