package dev.symbiont.train;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.data.Batches;
import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.nn.Activation;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.norm.BatchNorm1d;
import dev.symbiont.nn.parallel.DistributedDataParallel;
import dev.symbiont.nn.parallel.RankThreads;
import dev.symbiont.optim.Optimizer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static dev.symbiont.train.RankTraining.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * What the ranks of a data-parallel {@link Trainer} decide together: where to stop (a NaN,
 * a cancellation or a time limit on one rank stops all of them after the same step), which steps
 * to skip, the lr a time limit sets; and what rank 0 alone does (files, progress), and whose
 * batch-norm statistics they end with.
 */
class DistributedTrainerStopTest {
    private static final int B = 8;

    @TempDir
    Path dir;

    /** One rank's end: its result, its state, and what its progress printed. */
    private record End(Trainer.Result result, Map<String, float[]> state, String log) {}

    /**
     * Two ranks train for {@code config} (progress as log lines into each rank's own buffer);
     * {@code onLoss} may change rank r's loss at its k-th micro-batch (k from 1), and {@code setup}
     * adds to rank r's trainer.
     */
    private static List<RankThreads.Outcome<End>> twoRanks(TrainerConfig config, LossChange onLoss, Setup setup) {
        return outcomes(2, (rank, comm) -> {
            Sequential m = model(1 + rank);
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            int[] calls = {0};
            try (var ddp = DistributedDataParallel.wrap(m, comm)) {
                var builder = Trainer.builder(m, optimizer(m), train(B, rank, 2),
                                (RegressionBatch b) -> onLoss.change(rank, ++calls[0]).apply(Losses.mse(m.forward(b.x()), b.y())))
                        .config(config.withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8)))
                        .distributed(ddp);
                setup.add(rank, calls, builder);
                Trainer.Result r = builder.build().fit();
                return new End(r, state(m), log.toString(StandardCharsets.UTF_8));
            }
        });
    }

    @FunctionalInterface
    private interface LossChange {
        UnaryOperator<Tensor> change(int rank, int call);
    }

    @FunctionalInterface
    private interface Setup {
        void add(int rank, int[] lossCalls, Trainer.Builder<RegressionBatch> builder);
    }

    private static final LossChange NONE = (rank, call) -> loss -> loss;
    private static final Setup PLAIN = (rank, calls, builder) -> { };

    private static List<End> ends(List<RankThreads.Outcome<End>> outcomes) {
        for (var o : outcomes) if (o.failure() != null) throw new AssertionError("a rank failed: " + o.failure(), o.failure());
        return outcomes.stream().map(RankThreads.Outcome::result).toList();
    }

    private static void assertSameState(List<End> ends) {
        for (var e : ends.get(0).state().entrySet()) assertArrayEquals(e.getValue(), ends.get(1).state().get(e.getKey()), e.getKey());
    }

    @Test
    void a_nan_loss_on_one_rank_stops_every_rank_at_the_same_step_with_the_same_message() {
        var outcomes = twoRanks(TrainerConfig.steps(10).withLogEvery(2), (rank, call) -> rank == 1 && call == 3 ? loss -> loss.mul(Double.NaN) : loss -> loss, PLAIN);
        for (var o : outcomes) {
            NonFiniteException e = assertInstanceOf(NonFiniteException.class, o.failure());
            assertEquals(3, e.step());
            assertEquals(outcomes.get(0).failure().getMessage(), e.getMessage());
        }
        assertTrue(outcomes.get(0).failure().getMessage().startsWith("step 3: the loss is NaN"), outcomes.get(0).failure().getMessage());
    }

    @Test
    void a_loss_not_finite_on_one_rank_alone_is_skipped_on_every_rank_and_the_replicas_stay_identical() {
        // A constant NaN added to the loss leaves the gradients finite: only the losses tell the step apart.
        List<End> ends = ends(twoRanks(TrainerConfig.steps(6).withLogEvery(2).withSkipNonFinite(1),
                (rank, call) -> rank == 1 && call == 3 ? loss -> loss.add(Double.NaN) : loss -> loss, PLAIN));
        assertSameState(ends);
        assertTrue(ends.get(0).log().contains("step 3: the loss is NaN; that step was skipped (1 of at most 1)"), ends.get(0).log());
        assertEquals(ends.get(0).result().trainLoss(), ends.get(1).result().trainLoss());
    }

    @Test
    void a_cancellation_on_one_rank_stops_every_rank_after_the_same_step_and_rank_0_saves_it() throws Exception {
        Path checkpoint = dir.resolve("ckpt.safetensors");
        Cancellation[] onRankOne = {new Cancellation()};
        List<End> ends = ends(twoRanks(TrainerConfig.steps(20).withCheckpoint(checkpoint, 0, false), NONE, (rank, calls, builder) -> {
            if (rank == 0) return;
            builder.cancellation(onRankOne[0]);
            builder.tokensPerBatch(b -> {
                if (calls[0] == 3) onRankOne[0].request("asked on rank 1");
                return b.x().size(0);
            });
        }));
        for (End e : ends) {
            assertEquals(3, e.result().steps());
            assertTrue(e.result().cancelled());
        }
        assertSameState(ends);
        assertTrue(ends.get(0).log().contains("stopping at step 3: a stop was requested on another rank"), ends.get(0).log());
        assertEquals("3", TrainingCheckpoint.metadata(checkpoint).get("step"));
    }

    @Test
    void a_time_limit_reached_on_one_rank_stops_every_rank_and_the_clocks_agree_on_the_lr() {
        // Rank r's clock says (r + 1) seconds per micro-batch: rank 1 reaches the 10 s limit at step 5, and its
        // schedule (which follows the clock under a time limit) runs ahead of rank 0's until then.
        List<End> ends = ends(twoRanks(TrainerConfig.steps(20).withTimeLimit(Duration.ofSeconds(10)), NONE,
                (rank, calls, builder) -> builder.schedule(dev.symbiont.optim.LrSchedule.warmupCosine(0.01, 0.001, 2, 20))
                        .clock(() -> calls[0] * (rank + 1) * 1_000_000_000L)));
        for (End e : ends) assertEquals(5, e.result().steps());
        assertSameState(ends);
        assertTrue(ends.get(0).log().contains("stopping at step 5: time limit PT10S reached"), ends.get(0).log());
    }

    @Test
    void only_rank_0_writes_the_checkpoint_the_metrics_and_progress_and_runs_the_checkpoint_listener() throws Exception {
        int[][] saved = {{0}, {0}};
        List<End> ends = ends(outcomes(2, (rank, comm) -> {
            Sequential m = model(1 + rank);
            Path own = Files.createDirectories(dir.resolve("rank" + rank));
            ByteArrayOutputStream log = new ByteArrayOutputStream();
            TrainerConfig config = TrainerConfig.steps(4).withLogEvery(1).withCheckpoint(own.resolve("ckpt.safetensors"), 2, false)
                    .withMetrics(own.resolve("metrics.csv")).withProgress(TrainerConfig.ProgressMode.LOG, new PrintStream(log, true, StandardCharsets.UTF_8));
            try (var ddp = DistributedDataParallel.wrap(m, comm)) {
                Trainer.Result r = trainer(m, train(B, rank, 2), config, 4, ddp).onCheckpoint(step -> saved[rank][0]++).build().fit();
                return new End(r, state(m), log.toString(StandardCharsets.UTF_8));
            }
        }));
        assertTrue(Files.exists(dir.resolve("rank0/ckpt.safetensors")));
        assertEquals(1 + 4, Files.readAllLines(dir.resolve("rank0/metrics.csv")).size(), "a header and a row per step");
        assertFalse(Files.exists(dir.resolve("rank1/ckpt.safetensors")));
        assertFalse(Files.exists(dir.resolve("rank1/metrics.csv")));
        assertEquals(2, saved[0][0], "rank 0's listener ran at steps 2 and 4");
        assertEquals(0, saved[1][0]);
        assertTrue(ends.get(0).log().contains("step 4: checkpoint saved"), ends.get(0).log());
        assertEquals("", ends.get(1).log());
    }

    private static Sequential batchNormModel(long seed) {
        Generator g = new Generator(seed);
        return new Sequential(new Linear(8, 16, true, g), new BatchNorm1d(16), Activation.tanh(), new Linear(16, 1, true, g));
    }

    @Test
    void batch_norm_statistics_end_as_rank_0_has_them_under_pytorchs_broadcast_before_every_forward() {
        int steps = 4;
        // PyTorch's broadcast_buffers: rank 0's buffers copied to every rank before each forward.
        List<Map<String, float[]>> pytorch = ranks(2, (rank, comm) -> {
            Sequential m = batchNormModel(1 + rank);
            Optimizer optimizer = optimizer(m);
            try (var ddp = DistributedDataParallel.wrap(m, comm); Batches<RegressionBatch> batches = train(B, rank, 2).epoch(0)) {
                for (int s = 0; s < steps; s++) {
                    ddp.broadcastBuffers();
                    RegressionBatch b = batches.next();
                    Losses.mse(m.forward(b.x()), b.y()).backward();
                    ddp.finishGradientSync();
                    optimizer.step();
                    optimizer.zeroGrad();
                }
            }
            return state(m);
        });
        List<Map<String, float[]>> trained = ranks(2, (rank, comm) -> {
            Sequential m = batchNormModel(1 + rank);
            try (var ddp = DistributedDataParallel.wrap(m, comm)) {
                Trainer.builder(m, optimizer(m), train(B, rank, 2), (RegressionBatch b) -> Losses.mse(m.forward(b.x()), b.y()))
                        .config(TrainerConfig.steps(steps).withProgress(TrainerConfig.ProgressMode.NONE, System.err))
                        .distributed(ddp).build().fit();
            }
            return state(m);
        });
        assertFalse(java.util.Arrays.equals(pytorch.get(0).get("1.running_mean"), pytorch.get(1).get("1.running_mean")),
                "under PyTorch's scheme the ranks' statistics differ after their last forward");
        for (int r = 0; r < 2; r++) {
            for (var e : pytorch.get(0).entrySet()) assertArrayEquals(e.getValue(), trained.get(r).get(e.getKey()), "rank " + r + ": " + e.getKey());
        }
    }
}
