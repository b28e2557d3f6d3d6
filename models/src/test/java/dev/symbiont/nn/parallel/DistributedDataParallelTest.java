package dev.symbiont.nn.parallel;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.distributed.CollectiveException;
import dev.symbiont.optim.SGD;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link DistributedDataParallel} on {@link Chain}, ranks as threads of one JVM. */
class DistributedDataParallelTest {
    /** A cap below any parameter's size: every parameter closes a bucket of its own. */
    private static final double ONE_PARAMETER_PER_BUCKET = 1e-6;

    private static DistributedDataParallel.Builder tinyBuckets(Chain model, dev.symbiont.core.distributed.Communicator comm) {
        return DistributedDataParallel.builder(model, comm).bucketCapMb(ONE_PARAMETER_PER_BUCKET).firstBucketCapMb(ONE_PARAMETER_PER_BUCKET);
    }

    private static Map<String, float[]> grads(Chain model) {
        Map<String, float[]> out = new java.util.LinkedHashMap<>();
        model.namedParameters().forEach((name, p) -> out.put(name, p.grad() == null ? null : p.grad().toFloatArray()));
        return out;
    }

    /** One rank's gradients of a step: its own (a backward under noSync) and what DDP made of them. */
    private record Grads(Map<String, float[]> local, Map<String, float[]> synced) {}

    /** Back-propagates {@code loss(x)} once locally and once synchronised, from zeroed gradients; leaves the synced ones. */
    private static Grads localThenSynced(Chain model, DistributedDataParallel ddp, Tensor x, boolean useExtra) {
        model.zeroGrad();
        try (var local = ddp.noSync()) {
            model.loss(x, useExtra).backward();
        }
        Map<String, float[]> local = grads(model);
        model.zeroGrad();
        model.loss(x, useExtra).backward();
        ddp.finishGradientSync();
        return new Grads(local, grads(model));
    }

    /** (a + b) / 2 in float32, as a two-rank AVG computes it. */
    private static float[] mean(float[] a, float[] b) {
        float[] m = new float[a.length];
        for (int i = 0; i < m.length; i++) m[i] = (a[i] + b[i]) / 2;
        return m;
    }

    // ---- the averaged gradients -----------------------------------------------------------------

    @Test
    void the_gradients_it_writes_are_exactly_the_mean_of_the_two_ranks_local_gradients() {
        List<Grads> ranks = RankThreads.results(2, (rank, comm) -> {
            Chain model = new Chain(4, 7);
            try (var ddp = tinyBuckets(model, comm).build()) {
                return localThenSynced(model, ddp, Chain.input(5, rank), true);
            }
        });
        for (String name : List.of("head", "body", "extra")) {
            float[] g0 = ranks.get(0).local().get(name), g1 = ranks.get(1).local().get(name);
            assertTrue(!java.util.Arrays.equals(g0, g1), "the ranks' local gradients of " + name + " differ (different data)");
            assertArrayEquals(mean(g0, g1), ranks.get(0).synced().get(name), name + " on rank 0");
            assertArrayEquals(mean(g0, g1), ranks.get(1).synced().get(name), name + " on rank 1");
        }
    }

    @Test
    void a_parameter_replaced_after_wrapping_by_a_checkpoint_load_is_still_averaged() {
        List<List<Grads>> ranks = RankThreads.results(2, (rank, comm) -> {
            Chain model = new Chain(4, 7);
            List<Grads> steps = new ArrayList<>();
            try (var ddp = tinyBuckets(model, comm).build()) {
                Map<String, Tensor> snapshot = new java.util.LinkedHashMap<>();
                model.stateDict().forEach((k, t) -> snapshot.put(k, t.clone()));
                model.loadStateDict(snapshot, true); // new value tensors: the hooks must follow them
                for (int step = 0; step < 2; step++) steps.add(localThenSynced(model, ddp, Chain.input(5, 10 * step + rank), true));
            }
            return steps;
        });
        for (int step = 0; step < 2; step++) {
            for (String name : List.of("head", "body", "extra")) {
                float[] expected = mean(ranks.get(0).get(step).local().get(name), ranks.get(1).get(step).local().get(name));
                assertArrayEquals(expected, ranks.get(0).get(step).synced().get(name), "step " + step + ": " + name);
            }
        }
    }

    @Test
    void two_micro_batches_under_noSync_then_a_synchronised_one_give_the_large_batch_gradient() {
        int ranks = 2, micro = 3, rows = 4;
        List<Map<String, float[]>> synced = RankThreads.results(ranks, (rank, comm) -> {
            Chain model = new Chain(4, 7);
            try (var ddp = tinyBuckets(model, comm).build()) {
                try (var local = ddp.noSync()) {
                    for (int m = 0; m < micro - 1; m++) model.loss(Chain.input(rows, rank * micro + m), true).div(micro).backward();
                }
                model.loss(Chain.input(rows, rank * micro + micro - 1), true).div(micro).backward();
                ddp.finishGradientSync();
                return grads(model);
            }
        });
        Chain single = new Chain(4, 7);
        List<Tensor> all = new ArrayList<>();
        for (int s = 0; s < ranks * micro; s++) all.add(Chain.input(rows, s));
        single.loss(Tensor.cat(all, 0), true).backward(); // one batch of the 24 rows
        for (var e : grads(single).entrySet()) {
            for (int r = 0; r < ranks; r++) assertClose(e.getValue(), synced.get(r).get(e.getKey()), 1e-6, e.getKey() + " on rank " + r);
        }
    }

    // ---- buckets: overlap, order, rebuild ---------------------------------------------------------

    @Test
    void a_bucket_is_reduced_while_backward_still_runs_and_buckets_start_in_index_order() {
        record Run(List<String> events, List<String> readyOrder, List<List<String>> before, List<List<String>> after) {}
        List<Run> runs = RankThreads.results(2, (rank, comm) -> {
            List<String> events = Collections.synchronizedList(new ArrayList<>());
            List<String> readyOrder = new ArrayList<>();
            Chain model = new Chain(4, 7);
            try (var ddp = tinyBuckets(model, new RecordingCommunicator(comm, events)).build()) {
                List<List<String>> before = ddp.bucketAssignment();
                List<dev.symbiont.core.Scope> probes = new ArrayList<>();
                model.namedParameters().forEach((name, p) -> probes.add(p.value().registerPostAccumulateGradHook(t -> readyOrder.add(name))));
                for (int step = 0; step < 2; step++) {
                    events.add("step " + step);
                    model.loss(Chain.input(3, rank), true).backward();
                    events.add("backward returned");
                    ddp.finishGradientSync();
                    model.zeroGrad();
                    probes.forEach(dev.symbiont.core.Scope::close);
                }
                return new Run(List.copyOf(events), readyOrder, before, ddp.bucketAssignment());
            }
        });
        Map<String, Integer> numel = Map.of("head", 8, "body", 12, "extra", 6);
        for (Run run : runs) {
            // Before any step: reverse registration order (head, body, extra registered) = extra, body, head.
            assertEquals(List.of(List.of("extra"), List.of("body"), List.of("head")), run.before());
            // After it: the order the first step's gradients became ready (body is used first in forward, so it is last).
            assertEquals(run.readyOrder().stream().map(List::of).toList(), run.after());
            assertTrue(!run.after().equals(run.before()), "the rebuild changed the order: " + run.after());
            for (int step = 0; step < 2; step++) {
                List<List<String>> assignment = step == 0 ? run.before() : run.after();
                List<String> expected = assignment.stream().map(b -> "allReduce " + numel.get(b.getFirst()) + " AVG").toList();
                List<String> stepEvents = run.events().subList(run.events().indexOf("step " + step) + 1,
                        step == 0 ? run.events().indexOf("step 1") : run.events().size());
                List<String> reductions = stepEvents.stream().filter(e -> e.startsWith("allReduce")).toList();
                assertEquals(expected, reductions, "step " + step + ": one all-reduce per bucket, in bucket-index order");
                assertTrue(stepEvents.indexOf(reductions.getFirst()) < stepEvents.indexOf("backward returned"),
                        "step " + step + ": the first bucket's all-reduce started inside backward: " + stepEvents);
            }
        }
    }

    // ---- wrap-time agreement ------------------------------------------------------------------------

    @Test
    void ranks_with_different_parameter_shapes_fail_on_every_rank_naming_the_ranks_and_the_parameter() {
        var outcomes = RankThreads.outcomes(3, (rank, comm) -> DistributedDataParallel.wrap(new Chain(rank == 2 ? 5 : 4, 7), comm));
        for (int r = 0; r < 3; r++) {
            Throwable t = outcomes.get(r).failure();
            assertInstanceOf(CollectiveException.class, t, "rank " + r);
            String m = t.getMessage();
            assertTrue(m.contains("parameter 'head' float32 [4, 2]") && m.contains("parameter 'head' float32 [5, 2]"), m);
            assertTrue(m.contains("rank 2 has parameter 'head' float32 [5, 2]") && m.contains("Ranks [2] differ from rank 0"), m);
        }
    }

    @Test
    void a_rank_with_an_extra_parameter_or_other_options_fails_every_rank() {
        var extra = RankThreads.outcomes(2, (rank, comm) -> DistributedDataParallel.wrap(new Chain(4, 7, rank == 1), comm));
        for (var o : extra) {
            assertInstanceOf(CollectiveException.class, o.failure());
            String m = o.failure().getMessage();
            assertTrue(m.contains("rank 0: 4 parameters") && m.contains("rank 1: 5 parameters") && m.contains("rank 1 has parameter 'bias' float32 [2]"), m);
        }
        var options = RankThreads.outcomes(2, (rank, comm) ->
                DistributedDataParallel.builder(new Chain(4, 7), comm).findUnusedParameters(rank == 0).build());
        for (var o : options) {
            assertInstanceOf(CollectiveException.class, o.failure());
            assertTrue(o.failure().getMessage().contains("findUnusedParameters=true") && o.failure().getMessage().contains("findUnusedParameters=false"),
                    o.failure().getMessage());
        }
    }

    @Test
    void a_trainable_parameter_that_is_not_float32_is_refused_on_its_rank_and_named_on_the_others() {
        var outcomes = RankThreads.outcomes(2, (rank, comm) ->
                DistributedDataParallel.wrap(new OneWeight(rank == 1 ? dev.symbiont.core.DType.BFLOAT16 : dev.symbiont.core.DType.FLOAT32), comm));
        Throwable own = outcomes.get(1).failure(), other = outcomes.get(0).failure();
        assertInstanceOf(IllegalArgumentException.class, own);
        assertTrue(own.getMessage().contains("'weight' is bfloat16") && own.getMessage().contains("float32"), own.getMessage());
        assertInstanceOf(CollectiveException.class, other);
        assertTrue(other.getMessage().contains("ranks [1] cannot wrap") && other.getMessage().contains("'weight' is bfloat16"), other.getMessage());
    }

    @Test
    void wrapping_copies_rank_zeros_parameters_to_every_rank() {
        List<float[]> body = RankThreads.results(3, (rank, comm) -> {
            Chain model = new Chain(4, 7 + rank); // each rank initialised differently
            DistributedDataParallel.wrap(model, comm).close();
            return model.body.value().toFloatArray();
        });
        float[] rankZero = new Chain(4, 7).body.value().toFloatArray();
        for (float[] b : body) assertArrayEquals(rankZero, b);
    }

    @Test
    void broadcastBuffers_after_a_state_dict_load_copies_the_loaded_buffers_of_rank_zero() {
        List<float[]> means = RankThreads.results(2, (rank, comm) -> {
            var norm = new dev.symbiont.nn.norm.BatchNorm1d(3);
            try (var ddp = DistributedDataParallel.wrap(norm, comm)) {
                Map<String, Tensor> state = new java.util.LinkedHashMap<>(norm.stateDict());
                state.put("running_mean", Tensor.full(rank + 1, 3));
                norm.loadStateDict(state, true); // a resume replaces the buffer tensors the wrapper saw
                ddp.broadcastBuffers();
                return norm.runningMean().toFloatArray();
            }
        });
        assertArrayEquals(new float[] {1, 1, 1}, means.get(0));
        assertArrayEquals(new float[] {1, 1, 1}, means.get(1), "rank 1 holds rank 0's loaded running mean");
    }

    // ---- unused parameters ------------------------------------------------------------------------

    @Test
    void a_parameter_unused_on_one_rank_is_an_error_on_every_rank_naming_it_and_the_rank() {
        var outcomes = RankThreads.outcomes(2, (rank, comm) -> {
            Chain model = new Chain(4, 7);
            try (var ddp = tinyBuckets(model, comm).build()) {
                model.loss(Chain.input(3, rank), rank == 0).backward(); // rank 1 leaves 'extra' out
                ddp.finishGradientSync();
                return null;
            }
        });
        for (int r = 0; r < 2; r++) {
            Throwable t = outcomes.get(r).failure();
            assertInstanceOf(CollectiveException.class, t, "rank " + r);
            assertTrue(t.getMessage().contains("no gradient for 'extra' on ranks [1]") && t.getMessage().contains("findUnusedParameters(true)"),
                    t.getMessage());
            assertTrue(t.getMessage().contains("bucket 0"), "'extra' is in bucket 0 before any rebuild: " + t.getMessage());
        }
    }

    @Test
    void with_findUnusedParameters_a_parameter_unused_on_one_rank_counts_as_zero_there_and_training_goes_on() {
        record Step(Grads grads, float[] extraAfter) {}
        List<List<Step>> ranks = RankThreads.results(2, (rank, comm) -> {
            Chain model = new Chain(4, 7);
            var sgd = new SGD(model.namedParameters(), SGD.options(0.1));
            List<Step> steps = new ArrayList<>();
            try (var ddp = tinyBuckets(model, comm).findUnusedParameters(true).build()) {
                for (int step = 0; step < 3; step++) {
                    Grads grads = localThenSynced(model, ddp, Chain.input(3, 10 * step + rank), rank == 0); // rank 1 leaves 'extra' out
                    sgd.step();
                    sgd.zeroGrad();
                    steps.add(new Step(grads, model.extra.value().toFloatArray()));
                }
            }
            return steps;
        });
        for (int step = 0; step < 3; step++) {
            Step r0 = ranks.get(0).get(step), r1 = ranks.get(1).get(step);
            assertNull(r1.grads().local().get("extra"), "rank 1 produced no gradient for extra");
            float[] rankZero = r0.grads().local().get("extra");
            float[] half = mean(rankZero, new float[rankZero.length]);
            assertArrayEquals(half, r0.grads().synced().get("extra"), "step " + step + ": (rank 0's gradient + 0) / 2");
            assertArrayEquals(half, r1.grads().synced().get("extra"));
            assertArrayEquals(r0.extraAfter(), r1.extraAfter(), "step " + step + ": the replicas stay identical");
        }
    }

    @Test
    void with_findUnusedParameters_a_parameter_no_rank_used_keeps_no_gradient() {
        List<Map<String, float[]>> synced = RankThreads.results(2, (rank, comm) -> {
            Chain model = new Chain(4, 7);
            try (var ddp = tinyBuckets(model, comm).findUnusedParameters(true).build()) {
                model.loss(Chain.input(3, rank), false).backward();
                ddp.finishGradientSync();
                return grads(model);
            }
        });
        for (var g : synced) {
            assertNull(g.get("extra"), "an optimizer then skips it, as it would on one rank");
            assertNotNull(g.get("head"));
        }
    }

    // ---- misuse -------------------------------------------------------------------------------------

    @Test
    void finishing_inside_noSync_and_bad_bucket_caps_are_refused() {
        RankThreads.results(1, (rank, comm) -> {
            Chain model = new Chain(4, 7);
            try (var ddp = DistributedDataParallel.wrap(model, comm); var local = ddp.noSync()) {
                var e = assertThrows(IllegalStateException.class, ddp::finishGradientSync);
                assertTrue(e.getMessage().contains("noSync"), e.getMessage());
            }
            var cap = assertThrows(IllegalArgumentException.class, () -> DistributedDataParallel.builder(model, comm).bucketCapMb(0));
            assertTrue(cap.getMessage().contains("bucketCapMb") && cap.getMessage().contains("0.0"), cap.getMessage());
            return null;
        });
    }

    private static void assertClose(float[] expected, float[] actual, double tolerance, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            assertTrue(Math.abs(expected[i] - actual[i]) <= tolerance * (1 + Math.abs(expected[i])),
                    what + "[" + i + "]: " + expected[i] + " vs " + actual[i]);
        }
    }

    /** One trainable parameter "weight" (2) of the given dtype. */
    private static final class OneWeight extends dev.symbiont.nn.Module {
        OneWeight(dev.symbiont.core.DType dtype) { parameter("weight", Tensor.zeros(2).to(dtype)); }
    }
}
