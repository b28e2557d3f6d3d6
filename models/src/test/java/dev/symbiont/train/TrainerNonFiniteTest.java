package dev.symbiont.train;

import dev.symbiont.core.Tensor;
import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Sequential;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.Optimizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The trainer's guard against NaN and infinity: a non-finite loss or gradient norm stops the run
 * with the step and the quantity before anything is evaluated or saved, or, within a limit, the
 * step is skipped and its update taken back on the backend.
 */
class TrainerNonFiniteTest {
    @TempDir
    Path dir;

    private final ByteArrayOutputStream log = new ByteArrayOutputStream();

    /** The MSE of the regression, made NaN from the steps in {@code poisoned} (counted from 1, one micro-batch each). */
    private Trainer<RegressionBatch> trainer(Sequential m, Optimizer opt, TrainerConfig config, Set<Integer> poisoned) {
        int[] calls = {0};
        return Trainer.builder(m, opt, TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> {
                    Tensor loss = Losses.mse(m.forward(b.x()), b.y());
                    return poisoned.contains(++calls[0]) ? loss.mul(Double.NaN) : loss;
                })
                .schedule(LrSchedule.constant(0.01))
                .config(config.withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8)))
                .build();
    }

    private static Map<String, float[]> weights(Sequential m) {
        Map<String, float[]> out = new java.util.LinkedHashMap<>();
        m.stateDict().forEach((k, v) -> out.put(k, v.toFloatArray()));
        return out;
    }

    private static void assertSameWeights(Map<String, float[]> expected, Map<String, float[]> actual) {
        assertEquals(expected.keySet(), actual.keySet());
        expected.forEach((k, v) -> assertArrayEquals(v, actual.get(k), k));
    }

    @Test
    void should_stop_at_a_nan_loss_naming_its_step_and_keep_the_last_good_checkpoint() throws Exception {
        Sequential m = TrainerTest.model(1);
        Path ckpt = dir.resolve("ckpt.safetensors");
        // Checkpoints at steps 2 and 4, lines every 10: step 3's NaN is read at step 4, before that save.
        TrainerConfig config = TrainerConfig.steps(20).withLogEvery(10).withCheckpoint(ckpt, 2, false);
        var trainer = trainer(m, TrainerTest.optimizer(m), config, Set.of(3));
        NonFiniteException e = assertThrows(NonFiniteException.class, trainer::fit);
        assertEquals(3, e.step());
        assertEquals("loss", e.quantity());
        assertTrue(Double.isNaN(e.value()));
        assertEquals("step 3: the loss is NaN, so the run stopped; nothing from step 3 on was saved", e.getMessage());
        assertEquals("2", TrainingCheckpoint.metadata(ckpt).get("step"), "the checkpoint of step 2 stays");
    }

    @Test
    void should_name_a_non_finite_gradient_norm_when_the_loss_is_finite() {
        Sequential m = TrainerTest.model(1);
        int[] calls = {0};
        // sqrt at 0 is finite, its derivative is not: the loss stays finite, the gradients become NaN at step 2.
        var trainer = Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> {
                    Tensor y = m.forward(b.x());
                    Tensor loss = Losses.mse(y, b.y());
                    return ++calls[0] == 2 ? loss.add(y.mul(0.0).sum().sqrt()) : loss;
                })
                .config(TrainerConfig.steps(5).withClipNorm(1.0).withProgress(TrainerConfig.ProgressMode.NONE, System.err))
                .build();
        NonFiniteException e = assertThrows(NonFiniteException.class, trainer::fit);
        assertEquals(2, e.step());
        assertEquals("gradient norm", e.quantity());
    }

    @Test
    void should_skip_a_non_finite_step_leaving_weights_and_moments_as_they_were() throws Exception {
        Sequential skipped = TrainerTest.model(1), clean = TrainerTest.model(1);
        Optimizer skippedOpt = TrainerTest.optimizer(skipped), cleanOpt = TrainerTest.optimizer(clean);
        Trainer.Result r = trainer(skipped, skippedOpt, TrainerConfig.steps(3).withSkipNonFinite(1), Set.of(3)).fit();
        trainer(clean, cleanOpt, TrainerConfig.steps(2), Set.of()).fit();

        assertEquals(3, r.steps());
        assertSameWeights(weights(clean), weights(skipped));
        for (String name : cleanOpt.parameters().keySet()) {
            for (String buffer : new String[] {"exp_avg", "exp_avg_sq"}) {
                assertArrayEquals(cleanOpt.state(name).buffer(buffer).toFloatArray(), skippedOpt.state(name).buffer(buffer).toFloatArray(),
                        name + " " + buffer);
            }
        }
        assertFalse(Double.isNaN(r.trainLoss()), "the window's loss leaves the skipped step out");
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("step 3: the loss is NaN; that step was skipped (1 of at most 1)"), log.toString());
    }

    @Test
    void should_take_back_a_skipped_first_step_to_zero_moments() throws Exception {
        Sequential m = TrainerTest.model(1);
        Map<String, float[]> before = weights(m);
        Optimizer opt = TrainerTest.optimizer(m);
        trainer(m, opt, TrainerConfig.steps(1).withSkipNonFinite(1), Set.of(1)).fit();
        assertSameWeights(before, weights(m));
        for (String name : opt.parameters().keySet()) {
            float[] moment = opt.state(name).buffer("exp_avg").toFloatArray();
            assertArrayEquals(new float[moment.length], moment, name);
        }
    }

    @Test
    void should_stop_once_more_steps_than_the_limit_were_skipped() {
        Sequential m = TrainerTest.model(1);
        TrainerConfig config = TrainerConfig.steps(20).withLogEvery(5).withSkipNonFinite(2);
        var trainer = trainer(m, TrainerTest.optimizer(m), config, Set.of(2, 7, 8));
        NonFiniteException e = assertThrows(NonFiniteException.class, trainer::fit);
        assertEquals(7, e.step());
        assertTrue(e.getMessage().startsWith("step 7: the loss is NaN; 3 non-finite steps were skipped, more than the limit of 2"), e.getMessage());
        assertTrue(weights(m).values().stream().allMatch(w -> Arrays.stream(toDoubles(w)).allMatch(Double::isFinite)), "no NaN reached the weights");
    }

    @Test
    void should_stop_at_a_non_finite_validation_loss_before_the_checkpoint_that_would_follow() throws Exception {
        Sequential m = TrainerTest.model(1);
        Path ckpt = dir.resolve("ckpt.safetensors");
        int[] evaluations = {0};
        var trainer = Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                .eval(TrainerTest.loader(64, 4, 0), b -> {
                    Tensor loss = Losses.mse(m.forward(b.x()), b.y());
                    return ++evaluations[0] > 1 ? loss.mul(Double.POSITIVE_INFINITY) : loss;
                })
                .config(TrainerConfig.steps(20).withEval(5, 1).withCheckpoint(ckpt, 5, false).withProgress(TrainerConfig.ProgressMode.NONE, System.err))
                .build();
        NonFiniteException e = assertThrows(NonFiniteException.class, trainer::fit);
        assertEquals("step 10: the validation loss is +inf, so the run stopped; nothing from step 10 on was saved", e.getMessage());
        assertEquals("validation loss", e.quantity());
        assertEquals("5", TrainingCheckpoint.metadata(ckpt).get("step"));
    }

    private static double[] toDoubles(float[] f) {
        double[] d = new double[f.length];
        for (int i = 0; i < f.length; i++) d[i] = f[i];
        return d;
    }
}
