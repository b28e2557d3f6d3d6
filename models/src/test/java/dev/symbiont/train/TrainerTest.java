package dev.symbiont.train;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.data.tasks.RegressionExample;
import dev.symbiont.data.tasks.RegressionTask;
import dev.symbiont.nn.Activation;
import dev.symbiont.nn.Dropout;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Parameter;
import dev.symbiont.nn.Sequential;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.ParamGroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class TrainerTest {
    @TempDir
    Path dir;

    static Sequential model(long seed) {
        Generator g = new Generator(seed);
        return new Sequential(new Linear(8, 32, true, g), Activation.tanh(), new Dropout(0.1, new Generator(seed + 1)),
                new Linear(32, 1, true, g));
    }

    static DataLoader<RegressionExample, RegressionBatch> loader(int size, long seed, int prefetch) {
        return DataLoader.builder(new RegressionTask(8, 0.01f, size, 7), RegressionExample::collate)
                .batchSize(16).shuffle(seed).dropLast(true).prefetch(prefetch).build();
    }

    static Optimizer optimizer(Sequential m) {
        return new AdamW(ParamGroup.splitDecay(m, 0.01), AdamW.options(0.01));
    }

    static Trainer<RegressionBatch> trainer(Sequential m, Optimizer opt, TrainerConfig config) {
        return trainer(m, opt, config, config.maxSteps());
    }

    /** The schedule spans {@code scheduleSteps}, so an interrupted run and its resumption share one. */
    static Trainer<RegressionBatch> trainer(Sequential m, Optimizer opt, TrainerConfig config, long scheduleSteps) {
        return Trainer.builder(m, opt, loader(256, 3, 2), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                .schedule(LrSchedule.warmupCosine(0.01, 0.001, Math.min(5, scheduleSteps), scheduleSteps))
                .eval(loader(64, 4, 0), b -> Losses.mse(m.forward(b.x()), b.y()))
                .tokensPerBatch(b -> b.x().size(0))
                .config(config)
                .build();
    }

    @Test
    void should_fit_a_regression_with_evaluation_metrics_and_log_lines() throws Exception {
        Sequential m = model(1);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Path metrics = dir.resolve("metrics.csv");
        TrainerConfig config = TrainerConfig.steps(200).withEval(100, 4).withClipNorm(1.0).withMetrics(metrics).withLogEvery(50)
                .withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8));
        Trainer<RegressionBatch> t = trainer(m, optimizer(m), config);
        double before = t.evaluate();
        Trainer.Result r = t.fit();
        assertEquals(200, r.steps());
        assertTrue(r.evalLoss() < 0.1 * before, "eval loss " + r.evalLoss() + " from " + before);
        List<String> lines = Files.readAllLines(metrics);
        assertEquals("step,epoch,loss,lr,grad_norm,tokens_per_s,eval_loss,elapsed_s", lines.get(0));
        assertEquals(1 + 4, lines.size(), "a header and one line per 50 steps");
        assertTrue(lines.get(2).startsWith("100,"), lines.get(2));
        assertFalse(lines.get(2).split(",")[6].isEmpty(), "step 100 carries an eval loss");
        String out = log.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("step 200/200 loss") && out.contains("tok/s") && out.contains("eval loss"), out);
    }

    @Test
    void should_resume_from_a_checkpoint_bit_identically() throws Exception {
        TrainerConfig quiet = TrainerConfig.steps(12).withAccumulation(2).withClipNorm(0.5)
                .withProgress(TrainerConfig.ProgressMode.NONE, System.err);
        Sequential straight = model(5);
        trainer(straight, optimizer(straight), quiet, 12).fit();

        Path ckpt = dir.resolve("run.safetensors");
        Sequential first = model(5);
        trainer(first, optimizer(first), TrainerConfig.steps(7).withAccumulation(2).withClipNorm(0.5)
                .withCheckpoint(ckpt, 0, false).withProgress(TrainerConfig.ProgressMode.NONE, System.err), 12).fit();
        Sequential resumed = model(99);  // different initial weights: everything must come from the checkpoint
        Trainer.Result r = trainer(resumed, optimizer(resumed), quiet.withCheckpoint(ckpt, 0, true), 12).fit();
        assertEquals(12, r.steps());
        Map<String, Parameter> a = straight.namedParameters(), b = resumed.namedParameters();
        for (String key : a.keySet()) {
            assertArrayEquals(bits(a.get(key).value()), bits(b.get(key).value()), key + " differs after resume");
        }
    }

    @Test
    void should_refuse_a_checkpoint_of_another_model() throws Exception {
        Path ckpt = dir.resolve("small.safetensors");
        Sequential m = model(1);
        trainer(m, optimizer(m), TrainerConfig.steps(1).withCheckpoint(ckpt, 0, false)
                .withProgress(TrainerConfig.ProgressMode.NONE, System.err)).fit();
        Sequential other = new Sequential(new Linear(8, 16, true, new Generator(1)), Activation.tanh(), new Linear(16, 1, true, new Generator(2)));
        var e = assertThrows(java.io.IOException.class, () -> Trainer.builder(other, optimizer(other), loader(64, 1, 0),
                (RegressionBatch b) -> Losses.mse(other.forward(b.x()), b.y()))
                .config(TrainerConfig.steps(2).withCheckpoint(ckpt, 0, true).withProgress(TrainerConfig.ProgressMode.NONE, System.err))
                .build().fit());
        assertTrue(e.getMessage().startsWith(ckpt.toString()) && e.getMessage().contains("0.weight"), e.getMessage());
    }

    private static int[] bits(Tensor t) {
        float[] v = t.toFloatArray();
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) out[i] = Float.floatToRawIntBits(v[i]);
        return out;
    }

    /**
     * The auxiliary loss is added before backward (here a penalty on the first layer's weight,
     * which it shrinks) and reported beside the task loss, not in it (a constant 100 never
     * shows in the loss column).
     */
    @Test
    void should_add_the_auxiliary_loss_to_backward_and_report_it_apart() throws Exception {
        double plain = firstWeightNorm(null), penalised = firstWeightNorm(m -> () -> weight(m).square().sum().mul(10));
        assertTrue(penalised < 0.5 * plain, "weight norm " + penalised + " with the penalty, " + plain + " without");

        Sequential m = model(2);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        Path metrics = dir.resolve("aux.csv");
        TrainerConfig config = TrainerConfig.steps(20).withLogEvery(10).withMetrics(metrics)
                .withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8));
        Trainer.builder(m, optimizer(m), loader(256, 3, 0), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                .auxiliaryLoss(() -> Tensor.scalar(100f)).config(config).build().fit();
        List<String> lines = Files.readAllLines(metrics);
        assertEquals("step,epoch,loss,aux_loss,lr,grad_norm,tokens_per_s,eval_loss,elapsed_s", lines.get(0));
        String[] row = lines.get(2).split(",");
        assertTrue(Double.parseDouble(row[2]) < 10, "task loss alone: " + lines.get(2));
        assertEquals(100.0, Double.parseDouble(row[3]), 1e-9);
        assertTrue(log.toString(StandardCharsets.UTF_8).contains(" aux 100.0000 lr "), log.toString(StandardCharsets.UTF_8));
    }

    private static Tensor weight(Sequential m) { return m.parameters().getFirst().value(); }

    /** The first layer's weight norm after 60 steps, with the auxiliary loss {@code aux} makes for the model (or none). */
    private double firstWeightNorm(java.util.function.Function<Sequential, java.util.function.Supplier<Tensor>> aux) throws Exception {
        Sequential m = model(3);
        var b = Trainer.builder(m, optimizer(m), loader(256, 3, 0), (RegressionBatch batch) -> Losses.mse(m.forward(batch.x()), batch.y()))
                .config(TrainerConfig.steps(60).withProgress(TrainerConfig.ProgressMode.NONE, System.err));
        if (aux != null) b.auxiliaryLoss(aux.apply(m));
        b.build().fit();
        return Math.sqrt(weight(m).square().sum().item());
    }

    @Test
    void should_call_the_checkpoint_listener_after_each_checkpoint_is_written() throws Exception {
        Sequential m = model(1);
        Path ckpt = dir.resolve("ckpt.safetensors");
        List<String> seen = new java.util.ArrayList<>();
        Trainer.builder(m, optimizer(m), loader(256, 3, 0), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                .config(TrainerConfig.steps(6).withCheckpoint(ckpt, 2, false).withProgress(TrainerConfig.ProgressMode.NONE, System.err))
                .onCheckpoint(step -> seen.add(step + "@" + TrainingCheckpoint.metadata(ckpt).get("step")))
                .build()
                .fit();
        assertEquals(List.of("2@2", "4@4", "6@6"), seen);
    }
}
