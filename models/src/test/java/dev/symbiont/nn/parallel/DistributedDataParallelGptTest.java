package dev.symbiont.nn.parallel;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.data.DataLoader;
import dev.symbiont.data.tasks.InductionHeadsTask;
import dev.symbiont.data.tasks.SequenceBatch;
import dev.symbiont.data.tasks.SequenceExample;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.optim.AdamW;
import dev.symbiont.optim.Optimizer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Data parallelism changes where a batch is computed, not what the step does: a tiny GPT trained
 * K = 3 AdamW steps by N ranks, each on B examples of a sharded loader, reaches the parameters one
 * rank reaches on the unsharded loader's batches of N·B (the same examples per step; the induction
 * heads task scores one position per example, so the mean of the ranks' mean losses is the large
 * batch's mean loss). The ranks start from different initialisations: wrapping copies rank 0's.
 */
class DistributedDataParallelGptTest {
    private static final int B = 4, STEPS = 3, SEED = 7;
    private static final GptConfig CONFIG = GptConfig.of(8, 16, 2, 2, 8);
    private static final InductionHeadsTask TASK = new InductionHeadsTask(8, 8, 48, 1);
    /**
     * Adam's eps. The key bias's true gradient is zero (softmax ignores a per-query constant), so
     * what backward computes for it is rounding noise (~1e-9), different for every way of summing
     * the batch; with the default eps 1e-8 Adam turns that noise into steps of up to ±lr. At 1e-6
     * the noise moves it by less than 1e-5 in three steps; every other parameter agrees to ~3e-8.
     */
    private static final double EPS = 1e-6;
    /** The largest parameter difference to one rank allowed after {@link #STEPS} steps (parameters are of order 1). */
    private static final double TOLERANCE = 2e-5;

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3})
    void n_ranks_on_batch_b_reach_the_parameters_of_one_rank_on_batch_n_times_b_and_agree_bit_for_bit(int n) {
        Map<String, float[]> single = train(new Gpt(CONFIG, new Generator(SEED), 0.1), loader(n * B, 0, 1), null);
        List<Map<String, float[]>> ranks = RankThreads.results(n, (rank, comm) -> {
            Gpt model = new Gpt(CONFIG, new Generator(SEED + rank), 0.1);
            try (var ddp = DistributedDataParallel.wrap(model, comm)) {
                return train(model, loader(B, rank, n), ddp);
            }
        });
        double worst = 0;
        for (var e : single.entrySet()) {
            float[] expected = e.getValue();
            for (int r = 0; r < n; r++) {
                float[] actual = ranks.get(r).get(e.getKey());
                assertArrayEquals(ranks.get(0).get(e.getKey()), actual, e.getKey() + ": rank " + r + " is bit-identical to rank 0");
                for (int i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
            }
        }
        System.out.printf("%d ranks: largest parameter difference to one rank after %d steps: %.3g%n", n, STEPS, worst);
        assertTrue(worst <= TOLERANCE, "largest difference " + worst + " against a tolerance of " + TOLERANCE);
        float[] start = new Gpt(CONFIG, new Generator(SEED), 0.1).stateDict().get("blocks.0.attn.qkv.weight").toFloatArray();
        assertTrue(!java.util.Arrays.equals(start, single.get("blocks.0.attn.qkv.weight")), "the steps moved the parameters");
    }

    private static DataLoader<SequenceExample, SequenceBatch> loader(int batch, int rank, int ranks) {
        return DataLoader.builder(TASK, SequenceExample::collate).batchSize(batch).shuffle(5).shard(rank, ranks).build();
    }

    /** {@link #STEPS} AdamW steps on the first batches of epoch 0; the final parameters by name. */
    private static Map<String, float[]> train(Gpt model, DataLoader<SequenceExample, SequenceBatch> loader, DistributedDataParallel ddp) {
        Optimizer optimizer = new AdamW(model.parameterGroups(0.01), AdamW.options(3e-3).eps(EPS));
        try (var batches = loader.epoch(0)) {
            for (int step = 0; step < STEPS; step++) {
                SequenceBatch b = batches.next();
                model.loss(b.input(), b.target()).backward();
                if (ddp != null) ddp.finishGradientSync();
                optimizer.step();
                optimizer.zeroGrad();
            }
        }
        Map<String, float[]> out = new LinkedHashMap<>();
        model.stateDict().forEach((k, t) -> out.put(k, t.toFloatArray()));
        assertEquals(model.stateDict().size(), out.size());
        return out;
    }
}
