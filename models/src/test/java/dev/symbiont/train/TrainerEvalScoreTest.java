package dev.symbiont.train;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.data.tasks.RegressionExample;
import dev.symbiont.data.tasks.RegressionTask;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Sequential;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Evaluation with a metric beyond the loss: per-example weighting, the metrics column, the progress line and the result. */
class TrainerEvalScoreTest {
    @TempDir
    Path dir;

    /** 70 examples in batches of 16: the last batch holds 6, so per-batch and per-example means differ. */
    private static DataLoader<RegressionExample, RegressionBatch> evalLoader() {
        return DataLoader.builder(new RegressionTask(8, 0.01f, 70, 7), RegressionExample::collate).batchSize(16).build();
    }

    /** A metric that could be anything: how many predictions land within 0.5 of the target. */
    private static EvalScore<RegressionBatch> within(Sequential m) {
        return b -> {
            Tensor pred = m.forward(b.x());
            Tensor close = pred.sub(b.y()).abs().lt(0.5);
            return new EvalScore.Score(Losses.mse(pred, b.y()).item(), b.x().size(0), close.sum().item());
        };
    }

    @Test
    void should_report_the_metric_per_example_over_every_eval_batch() throws Exception {
        Sequential m = TrainerTest.model(3);
        Path metrics = dir.resolve("metrics.csv");
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Trainer<RegressionBatch> t = Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0),
                        (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                .eval(evalLoader(), "within", within(m))
                .config(TrainerConfig.steps(40).withEval(20, 100).withLogEvery(10).withMetrics(metrics)
                        .withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8)))
                .build();
        Trainer.Result r = t.fit();

        // The same numbers computed here, example by example, over all 70.
        m.eval();
        double squared = 0, close = 0;
        try (var noGrad = GradMode.disabled()) {
            RegressionTask task = new RegressionTask(8, 0.01f, 70, 7);
            for (int i = 0; i < task.size(); i++) {
                RegressionBatch b = RegressionExample.collate(List.of(task.get(i)));
                double d = m.forward(b.x()).item() - b.y().item();
                squared += d * d;
                if (Math.abs(d) < 0.5) close++;
            }
        }
        assertEquals(close / 70, r.evalMetric(), 1e-9);
        assertEquals(squared / 70, r.evalLoss(), 1e-5);

        List<String> lines = Files.readAllLines(metrics);
        assertEquals("step,epoch,loss,lr,grad_norm,tokens_per_s,eval_loss,elapsed_s,eval_within", lines.get(0));
        String[] last = lines.getLast().split(",", -1);
        assertEquals("40", last[0]);
        assertEquals(r.evalMetric(), Double.parseDouble(last[8]), 1e-12);
        assertTrue(lines.get(1).endsWith(","), "a row without an evaluation leaves the metric empty: " + lines.get(1));
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("step 40: eval loss"), log.toString(StandardCharsets.UTF_8));
        assertTrue(log.toString(StandardCharsets.UTF_8).contains(" within "), log.toString(StandardCharsets.UTF_8));
    }

    @Test
    void should_leave_the_metric_nan_and_the_columns_unchanged_without_a_score() throws Exception {
        Sequential m = TrainerTest.model(4);
        Trainer.Result r = TrainerTest.trainer(m, TrainerTest.optimizer(m), TrainerConfig.steps(5).withEval(5, 2)
                .withProgress(TrainerConfig.ProgressMode.NONE, System.err)).fit();
        assertTrue(Double.isNaN(r.evalMetric()));
        assertFalse(Double.isNaN(r.evalLoss()));
    }

    @Test
    void should_reject_a_metric_name_that_would_break_the_metrics_header() {
        Sequential m = TrainerTest.model(4);
        var builder = Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(64, 3, 0), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()));
        var e = assertThrows(IllegalArgumentException.class, () -> builder.eval(evalLoader(), "top,1", within(m)));
        assertTrue(e.getMessage().contains("top,1"), e.getMessage());
    }
}
