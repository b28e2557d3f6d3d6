package dev.symbiont.train;

import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.parallel.DistributedDataParallel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.symbiont.train.RankTraining.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Data-parallel training through the real {@link Trainer} computes what one rank computes on the
 * whole batch: N ranks on B examples each reach one rank's parameters on N·B (to rounding, from
 * the different order of the sums), bit-identical on every rank; with gradient accumulation, and
 * across a resume. Ranks are threads with a {@code LocalCommunicator}, each model initialised
 * differently (wrapping copies rank 0's).
 */
class DistributedTrainerTest {
    private static final int B = 8, STEPS = 6;
    /** The largest parameter difference to one rank allowed after a few AdamW steps (parameters are of order 0.1 to 1). */
    private static final double TOLERANCE = 1e-6;

    @TempDir
    Path dir;

    private static TrainerConfig quiet(long steps) {
        return TrainerConfig.steps(steps).withClipNorm(1.0).withEval(3, 5).withProgress(TrainerConfig.ProgressMode.NONE, System.err);
    }

    /** One rank's run: the final state dict and the result. */
    private record Run(Map<String, float[]> state, Trainer.Result result) {}

    private static Run single(int batch, TrainerConfig config) throws Exception {
        Sequential m = model(1);
        Trainer.Result r = trainer(m, train(batch, 0, 1), config, config.maxSteps(), null).build().fit();
        return new Run(state(m), r);
    }

    private static List<Run> distributed(int n, int batch, TrainerConfig config) {
        return ranks(n, (rank, comm) -> {
            Sequential m = model(1 + rank);
            try (var ddp = DistributedDataParallel.wrap(m, comm)) {
                Trainer.Result r = trainer(m, train(batch, rank, n), config, config.maxSteps(), ddp).build().fit();
                return new Run(state(m), r);
            }
        });
    }

    /** Every rank's state equals rank 0's bit for bit, and lies within the tolerance of {@code expected}. */
    private static void assertSameModel(Map<String, float[]> expected, List<Run> ranks) {
        double worst = 0;
        for (var e : expected.entrySet()) {
            for (int r = 0; r < ranks.size(); r++) {
                float[] actual = ranks.get(r).state().get(e.getKey());
                assertArrayEquals(ranks.get(0).state().get(e.getKey()), actual, e.getKey() + ": rank " + r + " is bit-identical to rank 0");
                for (int i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(e.getValue()[i] - actual[i]));
            }
        }
        System.out.printf("%d ranks: largest parameter difference to one rank: %.3g%n", ranks.size(), worst);
        assertTrue(worst <= TOLERANCE, "largest difference to one rank " + worst + " against a tolerance of " + TOLERANCE);
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void n_ranks_on_batch_b_reach_the_parameters_of_one_rank_on_batch_n_times_b(int n) throws Exception {
        Run one = single(n * B, quiet(STEPS));
        List<Run> ranks = distributed(n, B, quiet(STEPS));
        assertSameModel(one.state(), ranks);
        assertFalse(java.util.Arrays.equals(state(model(1)).get("0.weight"), one.state().get("0.weight")), "the steps moved the parameters");
        for (Run r : ranks) {
            assertEquals(STEPS, r.result().steps());
            assertEquals(ranks.get(0).result().trainLoss(), r.result().trainLoss(), "every rank logs the same loss");
            assertEquals(ranks.get(0).result().evalLoss(), r.result().evalLoss(), "every rank evaluates the same");
            assertEquals(one.result().trainLoss(), r.result().trainLoss(), 1e-5, "the logged loss is the mean over the ranks");
            assertEquals(one.result().evalLoss(), r.result().evalLoss(), 1e-5);
        }
    }

    @Test
    void two_ranks_accumulating_two_micro_batches_reach_one_rank_on_the_four_times_larger_batch() throws Exception {
        Run one = single(4 * B, quiet(4));
        List<Run> ranks = distributed(2, B, quiet(4).withAccumulation(2));
        assertSameModel(one.state(), ranks);
    }

    @Test
    void evaluation_dealt_to_three_ranks_gives_the_numbers_of_one_rank() throws Exception {
        TrainerConfig config = quiet(1).withEval(1, 5); // 5 batches: ranks take 2, 2 and 1
        Sequential m = model(1);
        double one = trainer(m, train(B, 0, 1), config, STEPS, null).build().evaluate();
        List<double[]> ranks = ranks(3, (rank, comm) -> {
            Sequential replica = model(1 + rank);
            int[] batches = {0};
            try (var ddp = DistributedDataParallel.wrap(replica, comm)) {
                double loss = trainer(replica, train(B, rank, 3), config, STEPS, ddp)
                        .eval(eval(10), b -> {
                            batches[0]++;
                            return dev.symbiont.nn.Losses.mse(replica.forward(b.x()), b.y());
                        })
                        .build().evaluate();
                return new double[] {loss, batches[0]};
            }
        });
        double[] dealt = {2, 2, 1};
        for (int r = 0; r < 3; r++) {
            assertEquals(one, ranks.get(r)[0], 1e-12 * Math.abs(one), "rank " + r);
            assertEquals(dealt[r], ranks.get(r)[1], "rank " + r + " evaluates batches r, r + 3, ... of the first 5");
        }
    }

    @Test
    void two_ranks_resumed_from_a_checkpoint_end_where_an_uninterrupted_run_ends() throws Exception {
        Path whole = dir.resolve("whole.safetensors"), split = dir.resolve("split.safetensors");
        TrainerConfig config = quiet(STEPS);
        List<Run> uninterrupted = ranks(2, (rank, comm) -> run(rank, comm, config.withCheckpoint(whole, 0, false), STEPS));
        ranks(2, (rank, comm) -> run(rank, comm, TrainerConfig.steps(3).withCheckpoint(split, 0, false)
                .withClipNorm(1.0).withEval(3, 5).withProgress(TrainerConfig.ProgressMode.NONE, System.err), STEPS));
        List<Run> resumed = ranks(2, (rank, comm) -> run(rank, comm, config.withCheckpoint(split, 0, true), STEPS));
        for (int r = 0; r < 2; r++) {
            assertEquals(3, resumed.get(r).result().startStep(), "rank " + r + " resumed from the checkpoint");
            for (var e : uninterrupted.get(0).state().entrySet()) {
                assertArrayEquals(e.getValue(), resumed.get(r).state().get(e.getKey()), "rank " + r + ": " + e.getKey());
            }
        }
    }

    private static Run run(int rank, dev.symbiont.core.distributed.Communicator comm, TrainerConfig config, long scheduleSteps) throws Exception {
        Sequential m = model(1 + rank);
        try (var ddp = DistributedDataParallel.wrap(m, comm)) {
            Trainer.Result r = trainer(m, train(B, rank, 2), config, scheduleSteps, ddp).build().fit();
            return new Run(state(m), r);
        }
    }
}
