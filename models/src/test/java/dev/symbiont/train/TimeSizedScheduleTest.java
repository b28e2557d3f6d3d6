package dev.symbiont.train;

import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Sequential;
import dev.symbiont.optim.LrSchedule;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

/** The lr schedule of a run bounded by time ends at the time limit; runs bounded by steps are untouched. Clocks are fakes. */
class TimeSizedScheduleTest {
    private static final long SECOND = 1_000_000_000L;
    private static final double BASE = 0.01, MIN = 0.001;

    @TempDir
    Path dir;

    @Test
    void should_look_the_schedule_up_at_the_step_without_a_time_limit() {
        AtomicLong now = new AtomicLong(5 * SECOND);
        ScheduleClock clock = new ScheduleClock(1000, 0, null, now::get);
        now.addAndGet(3600 * SECOND);
        assertEquals(17, clock.scheduleStep(17));
        assertFalse(clock.timeUp());
    }

    @Test
    void should_stand_at_the_further_of_the_steps_and_the_clock() {
        AtomicLong now = new AtomicLong(-7 * SECOND);              // nanoTime's origin is arbitrary
        ScheduleClock clock = new ScheduleClock(1000, 0, Duration.ofSeconds(100), now::get);
        now.addAndGet(50 * SECOND);
        assertEquals(500, clock.scheduleStep(10), "half the time: half the schedule");
        assertEquals(700, clock.scheduleStep(700), "steps ahead of the clock");
        assertFalse(clock.timeUp());
        now.addAndGet(60 * SECOND);
        assertEquals(1000, clock.scheduleStep(20), "past the limit: the schedule's end, not beyond");
        assertTrue(clock.timeUp());
    }

    @Test
    void should_spread_a_resumed_runs_remaining_schedule_over_its_time_limit() {
        AtomicLong now = new AtomicLong();
        ScheduleClock clock = new ScheduleClock(1000, 400, Duration.ofSeconds(10), now::get);
        assertEquals(400, clock.scheduleStep(400));
        now.addAndGet(5 * SECOND);
        assertEquals(700, clock.scheduleStep(401));
    }

    @Test
    void should_end_a_time_bounded_run_at_the_schedules_minimum() throws Exception {
        AtomicLong now = new AtomicLong();
        Sequential m = TrainerTest.model(1);
        Path metrics = dir.resolve("metrics.csv");
        // Each step's forward takes one second of the fake clock; 20 s fit 20 of the 1,000 planned steps.
        TrainerConfig config = TrainerConfig.steps(1000).withLogEvery(1).withMetrics(metrics).withTimeLimit(Duration.ofSeconds(20))
                .withProgress(TrainerConfig.ProgressMode.NONE, System.err);
        Trainer.Result r = Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> {
                    now.addAndGet(SECOND);
                    return Losses.mse(m.forward(b.x()), b.y());
                })
                .schedule(LrSchedule.warmupCosine(BASE, MIN, 50, 1000))
                .config(config).clock(now::get).build().fit();
        assertEquals(20, r.steps());
        List<Double> lrs = column(metrics, "lr");
        assertEquals(20, lrs.size());
        assertEquals(BASE * 0.5 * (1 + Math.cos(Math.PI * (52 - 50) / 950.0)) * (1 - MIN / BASE) + MIN, lrs.get(1), 1e-12,
                "step 1 stands at 1 s of the 19 left after the first step: schedule step 52");
        assertEquals(MIN, lrs.get(19), 1e-15, "the last step is at the schedule's end");
        for (int i = 2; i < 20; i++) assertTrue(lrs.get(i) < lrs.get(i - 1), "annealing at step " + i + ": " + lrs);
    }

    @Test
    void should_train_a_run_that_stays_within_its_time_limit_exactly_as_one_without() throws Exception {
        AtomicLong now = new AtomicLong();
        List<Double> unlimited = losses(TrainerConfig.steps(40), now, 0, 0);
        List<Double> limited = losses(TrainerConfig.steps(40).withTimeLimit(Duration.ofSeconds(100)), now, SECOND, SECOND);
        assertEquals(40, unlimited.size());
        assertEquals(unlimited, limited);
    }

    @Test
    void should_not_let_a_slow_first_step_move_the_schedule() throws Exception {
        AtomicLong now = new AtomicLong();
        // The first step compiles everything (30 s of 100), the other 39 take a second each: 69 s in all.
        List<Double> unlimited = losses(TrainerConfig.steps(40), now, 0, 0);
        List<Double> limited = losses(TrainerConfig.steps(40).withTimeLimit(Duration.ofSeconds(100)), now, 30 * SECOND, SECOND);
        assertEquals(unlimited, limited, "the clock counts the pace from the second step");
        // Once the pace itself is too slow, the clock leads again: 10 s a step after the first.
        List<Double> slow = losses(TrainerConfig.steps(40).withTimeLimit(Duration.ofSeconds(100)), now, 30 * SECOND, 10 * SECOND);
        assertEquals(unlimited.subList(0, 2), slow.subList(0, 2), "the first update at the schedule's own step");
        assertNotEquals(unlimited.get(3), slow.get(3));
    }

    @Test
    void should_name_the_throughput_unit_in_the_progress_line() throws Exception {
        Sequential m = TrainerTest.model(1);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        TrainerConfig config = TrainerConfig.steps(10).withLogEvery(5)
                .withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8));
        Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                .tokensPerBatch(b -> b.x().size(0)).throughputUnit("img").config(config).build().fit();
        String out = log.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains(" img/s eta") && !out.contains("tok/s"), out);
        assertThrows(IllegalArgumentException.class, () -> Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0),
                (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y())).throughputUnit("img/s"));
    }

    @Test
    void should_count_the_eta_down_to_the_time_limit_when_that_comes_first() throws Exception {
        AtomicLong now = new AtomicLong();
        Sequential m = TrainerTest.model(1);
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        // One second a step, 1,000 steps planned, 30 s allowed: after 10 steps the steps say 16m30s, the clock 20 s.
        TrainerConfig config = TrainerConfig.steps(1000).withLogEvery(10).withTimeLimit(Duration.ofSeconds(30))
                .withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8));
        Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> {
                    now.addAndGet(SECOND);
                    return Losses.mse(m.forward(b.x()), b.y());
                })
                .config(config).clock(now::get).build().fit();
        String out = log.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("step 10/1000 ") && out.contains("eta 0m20s"), out);
        assertFalse(out.contains("eta 16m"), out);
    }

    /** The loss of every step of a seeded run whose first forward advances the fake clock by {@code first}, the others by {@code tick}. */
    private List<Double> losses(TrainerConfig config, AtomicLong now, long first, long tick) throws Exception {
        AtomicLong forwards = new AtomicLong();
        Sequential m = TrainerTest.model(1);
        Path metrics = Files.createTempFile(dir, "metrics", ".csv");
        Files.delete(metrics);
        Trainer.builder(m, TrainerTest.optimizer(m), TrainerTest.loader(256, 3, 0), (RegressionBatch b) -> {
                    now.addAndGet(forwards.getAndIncrement() == 0 ? first : tick);
                    return Losses.mse(m.forward(b.x()), b.y());
                })
                .schedule(LrSchedule.warmupCosine(BASE, MIN, 5, config.maxSteps()))
                .config(config.withLogEvery(1).withMetrics(metrics).withProgress(TrainerConfig.ProgressMode.NONE, System.err))
                .clock(now::get).build().fit();
        return column(metrics, "loss");
    }

    private static List<Double> column(Path csv, String name) throws Exception {
        List<String> lines = Files.readAllLines(csv);
        int c = List.of(lines.get(0).split(",")).indexOf(name);
        return lines.stream().skip(1).map(l -> Double.parseDouble(l.split(",")[c])).toList();
    }
}
