package dev.symbiont.train;

import dev.symbiont.core.Generator;
import dev.symbiont.core.distributed.Communicator;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.tasks.RegressionBatch;
import dev.symbiont.data.tasks.RegressionExample;
import dev.symbiont.data.tasks.RegressionTask;
import dev.symbiont.nn.Activation;
import dev.symbiont.nn.Linear;
import dev.symbiont.nn.Losses;
import dev.symbiont.nn.Module;
import dev.symbiont.nn.Sequential;
import dev.symbiont.nn.parallel.DistributedDataParallel;
import dev.symbiont.nn.parallel.RankThreads;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.LrSchedule;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.ParamGroup;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the data-parallel trainer tests share: a small regression MLP (no dropout, so N ranks on B
 * examples see what one rank sees on N·B), its sharded loaders, AdamW with eps 1e-6 (Adam turns a
 * zero true gradient's rounding noise into steps of up to ±lr at the default eps; see
 * {@code DistributedDataParallelGptTest}), and ranks as threads that may throw checked exceptions.
 */
final class RankTraining {
    /** Examples in the training set: a multiple of 2·8, 3·8 and 2·2·8, so every sharding deals whole batches. */
    static final int TRAIN_SIZE = 480;
    static final double EPS = 1e-6;

    private RankTraining() {}

    /** The MLP every rank builds, initialised from {@code seed} (ranks may differ: wrapping copies rank 0's). */
    static Sequential model(long seed) {
        Generator g = new Generator(seed);
        return new Sequential(new Linear(8, 32, true, g), Activation.tanh(), new Linear(32, 1, true, g));
    }

    /** The training loader of rank {@code rank} of {@code ranks}, {@code batch} examples per rank. */
    static DataLoader<RegressionExample, RegressionBatch> train(int batch, int rank, int ranks) {
        return DataLoader.builder(new RegressionTask(8, 0.01f, TRAIN_SIZE, 7), RegressionExample::collate)
                .batchSize(batch).shuffle(3).dropLast(true).shard(rank, ranks).build();
    }

    /** The validation loader, whole on every rank. */
    static DataLoader<RegressionExample, RegressionBatch> eval(int batch) {
        return DataLoader.builder(new RegressionTask(8, 0.01f, 100, 8), RegressionExample::collate).batchSize(batch).noShuffle().build();
    }

    static Optimizer optimizer(Module m) {
        return new AdamW(ParamGroup.splitDecay(m, 0.01), AdamW.options(0.01).eps(EPS));
    }

    /** A trainer of {@code m} with a warmup-cosine schedule over {@code scheduleSteps}, distributed over {@code ddp} when given. */
    static Trainer.Builder<RegressionBatch> trainer(Sequential m, DataLoader<RegressionExample, RegressionBatch> loader, TrainerConfig config,
                                                    long scheduleSteps, DistributedDataParallel ddp) {
        Trainer.LossFunction<RegressionBatch> mse = b -> Losses.mse(m.forward(b.x()), b.y());
        var builder = Trainer.builder(m, optimizer(m), loader, mse)
                .schedule(LrSchedule.warmupCosine(0.01, 0.001, 2, scheduleSteps))
                .eval(eval(10), mse)
                .tokensPerBatch(b -> b.x().size(0))
                .config(config);
        return ddp == null ? builder : builder.distributed(ddp);
    }

    /** The model's state dict, read to the host. */
    static Map<String, float[]> state(Module m) {
        Map<String, float[]> out = new LinkedHashMap<>();
        m.stateDict().forEach((k, t) -> out.put(k, t.toFloatArray()));
        return out;
    }

    /** One rank's work, which may throw anything. */
    @FunctionalInterface
    interface RankBody<T> {
        T run(int rank, Communicator comm) throws Exception;
    }

    /** Each rank's result, in rank order, under the hang guard; a failure on any rank fails the test. */
    static <T> List<T> ranks(int n, RankBody<T> body) {
        return RankThreads.results(n, (rank, comm) -> call(body, rank, comm));
    }

    /** Each rank's outcome, in rank order, under the hang guard. */
    static <T> List<RankThreads.Outcome<T>> outcomes(int n, RankBody<T> body) {
        return RankThreads.outcomes(n, (rank, comm) -> call(body, rank, comm));
    }

    private static <T> T call(RankBody<T> body, int rank, Communicator comm) {
        try {
            return body.run(rank, comm);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
