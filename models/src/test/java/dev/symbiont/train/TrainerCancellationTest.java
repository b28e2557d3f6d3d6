package dev.symbiont.train;

import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Sequential;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/** Stopping a run from outside: after the step in flight, with or without the final evaluation. */
class TrainerCancellationTest {
    @TempDir
    Path dir;

    private final Cancellation cancellation = new Cancellation();

    /** A regression run of {@code steps}, evaluated every 5 steps; {@code onEval} runs before each eval batch. */
    private Trainer<RegressionBatch> trainer(int steps, Runnable onStep, Runnable onEval) {
        Sequential m = TrainerTest.model(1);
        return Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> {
                    onStep.run();
                    return Losses.mse(m.forward(b.x()), b.y());
                })
                .eval(TrainerTest.loader(64, 4, 0), b -> {
                    onEval.run();
                    return Losses.mse(m.forward(b.x()), b.y());
                })
                .cancellation(cancellation)
                .config(TrainerConfig.steps(steps).withEval(5, 4).withCheckpoint(dir.resolve("ckpt.safetensors"), 0, false)
                        .withProgress(TrainerConfig.ProgressMode.NONE, System.err))
                .build();
    }

    @Test
    void should_stop_after_the_step_a_request_names() throws Exception {
        long[] named = {-1};
        int[] steps = {0};
        Trainer.Result r = trainer(20, () -> {
            if (++steps[0] == 3) named[0] = cancellation.request("asked");
        }, () -> { }).fit();
        assertEquals(3, named[0], "the request made during step 3 names it");
        assertEquals(3, r.steps());
        assertTrue(r.cancelled());
        assertFalse(Double.isNaN(r.evalLoss()), "a plain request still evaluates at the end");
    }

    @Test
    void should_name_no_step_before_the_run_starts_and_stop_after_the_first() throws Exception {
        assertEquals(0, cancellation.request("early"));
        Trainer.Result r = trainer(20, () -> { }, () -> { }).fit();
        assertEquals(1, r.steps());
    }

    @Test
    void should_skip_the_final_evaluation_and_save_at_once_when_asked_to_stop_now() throws Exception {
        int[] evalBatches = {0};
        cancellation.requestNow("now");
        Trainer.Result r = trainer(20, () -> { }, () -> evalBatches[0]++).fit();
        assertEquals(1, r.steps());
        assertEquals(0, evalBatches[0], "no evaluation batch ran");
        assertTrue(Double.isNaN(r.evalLoss()));
        assertEquals("1", TrainingCheckpoint.metadata(dir.resolve("ckpt.safetensors")).get("step"));
    }

    @Test
    void should_end_an_evaluation_in_progress_when_asked_to_stop_now_and_save_that_step() throws Exception {
        int[] evalBatches = {0};
        Trainer.Result r = trainer(20, () -> { }, () -> {
            if (++evalBatches[0] == 1) cancellation.requestNow("now");
        }).fit();
        assertEquals(5, r.steps(), "the periodic evaluation at step 5 was under way");
        assertEquals(1, evalBatches[0], "the evaluation ended after its current batch");
        assertTrue(r.cancelled());
        assertEquals("5", TrainingCheckpoint.metadata(dir.resolve("ckpt.safetensors")).get("step"));
    }
}
