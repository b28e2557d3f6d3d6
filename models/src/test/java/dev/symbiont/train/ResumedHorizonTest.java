package dev.symbiont.train;

import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Sequential;
import dev.symbiont.optim.LrSchedule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/** A resumed time-bounded run keeps the horizon its schedule was planned over, unless the caller gives another. Clocks are fakes. */
class ResumedHorizonTest {
    private static final long SECOND = 1_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void should_go_on_from_the_recorded_fraction_with_the_time_the_horizon_leaves() {
        AtomicLong now = new AtomicLong();
        var before = new TrainingTime(60 * SECOND, 100 * SECOND, 0.6);
        ScheduleClock clock = new ScheduleClock(1000, 300, Duration.ofSeconds(100), before, now::get);
        assertEquals(600, clock.scheduleStep(300), "the first step stands where the schedule stood, not at step 300");
        now.addAndGet(20 * SECOND);
        assertEquals(800, clock.scheduleStep(301), "half of the 40 s left: 0.6 + 0.4 · 0.5");
        assertFalse(clock.timeUp());
        now.addAndGet(20 * SECOND);
        assertTrue(clock.timeUp(), "the run's 100 s are used");
        assertEquals(100 * SECOND, clock.trainingTime().elapsedNanos());
        assertEquals(1.0, clock.trainingTime().scheduleFraction(), 1e-12);
    }

    @Test
    void should_rescale_the_schedule_to_a_new_horizon() {
        AtomicLong now = new AtomicLong();
        var used = new TrainingTime(100 * SECOND, 100 * SECOND, 1.0);
        ScheduleClock clock = new ScheduleClock(1000, 300, Duration.ofSeconds(200), used, now::get);
        assertEquals(500, clock.scheduleStep(300), "100 s of a 200 s horizon: half the schedule");
        now.addAndGet(50 * SECOND);
        assertEquals(750, clock.scheduleStep(301));
        assertEquals(200 * SECOND, clock.trainingTime().horizonNanos());
    }

    @Test
    void should_not_raise_the_lr_when_an_interrupted_time_bounded_run_resumes() throws Exception {
        AtomicLong now = new AtomicLong();
        Path checkpoint = dir.resolve("ckpt.safetensors");
        double[] first = run(now, checkpoint, dir.resolve("a.csv"), 50);
        double[] resumed = run(now, checkpoint, dir.resolve("b.csv"), 0);
        double lastBefore = first[first.length - 1];
        assertTrue(lastBefore < 0.008, "half the time: well into the annealing, lr " + lastBefore);
        assertTrue(resumed[0] <= lastBefore, "no re-warming on resume: " + lastBefore + " then " + resumed[0]);
        assertEquals(0.001, resumed[resumed.length - 1], 1e-12, "the run ends annealed when its 100 s are up");
        TrainingTime recorded = TrainingTime.of(TrainingCheckpoint.metadata(checkpoint));
        assertEquals(100 * SECOND, recorded.horizonNanos());
        assertTrue(recorded.used(), "the whole run trained its 100 s: " + recorded);
    }

    @Test
    void should_name_the_key_of_a_recorded_time_that_is_not_a_number() {
        var e = assertThrows(IllegalArgumentException.class, () -> TrainingTime.of(java.util.Map.of(
                TrainingTime.ELAPSED, "12", TrainingTime.HORIZON, "abc", TrainingTime.FRACTION, "0.5")));
        assertEquals("the checkpoint's time.elapsed_ns, time.horizon_ns and time.schedule_fraction must be numbers, got 12, abc, 0.5",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TrainingTime.of(java.util.Map.of(
                TrainingTime.ELAPSED, "12", TrainingTime.HORIZON, "10", TrainingTime.FRACTION, "1.5")), "a fraction past 1");
        assertNull(TrainingTime.of(java.util.Map.of()), "a checkpoint from before the time was recorded");
    }

    /** 1,000 planned steps, 100 s, a second a step; cancelled after {@code stopAfter} steps (0: not); the lr of each step. */
    private double[] run(AtomicLong now, Path checkpoint, Path metrics, int stopAfter) throws Exception {
        Sequential m = TrainerTest.model(1);
        Cancellation cancellation = new Cancellation();
        int[] steps = {0};
        Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> {
                    now.addAndGet(SECOND);
                    if (++steps[0] == stopAfter) cancellation.request("test");
                    return Losses.mse(m.forward(b.x()), b.y());
                })
                .schedule(LrSchedule.warmupCosine(0.01, 0.001, 5, 1000))
                .cancellation(cancellation)
                .config(TrainerConfig.steps(1000).withLogEvery(1).withMetrics(metrics).withCheckpoint(checkpoint, 0, true)
                        .withTimeLimit(Duration.ofSeconds(100)).withProgress(TrainerConfig.ProgressMode.NONE, System.err))
                .clock(now::get).build().fit();
        List<String> rows = Files.readAllLines(metrics);
        int lr = Arrays.asList(rows.getFirst().split(",")).indexOf("lr");
        return rows.stream().skip(1).mapToDouble(r -> Double.parseDouble(r.split(",")[lr])).toArray();
    }
}
