package dev.symbiont.data;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DataLoaderTest {
    private static final Duration NO_HANG = Duration.ofSeconds(20);

    private static Dataset<Integer> range(int n) {
        return Dataset.of(IntStream.range(0, n).boxed().toList());
    }

    private static DataLoader.Builder<Integer, List<Integer>> loader(int n) {
        return DataLoader.builder(range(n), List::copyOf);
    }

    private static List<List<Integer>> collect(Batches<List<Integer>> batches) {
        List<List<Integer>> all = new ArrayList<>();
        try (batches) {
            for (List<Integer> b : batches) all.add(b);
        }
        return all;
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 3})
    void shouldVisitEveryExampleInOrderWithoutShuffle(int prefetch) {
        var l = loader(10).batchSize(4).prefetch(prefetch).build();
        assertEquals(3, l.batchesPerEpoch());
        assertEquals(List.of(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7), List.of(8, 9)), collect(l.epoch(0)));
    }

    @Test
    void shouldDropTheShortLastBatchWhenAsked() {
        var l = loader(10).batchSize(4).dropLast(true).build();
        assertEquals(2, l.batchesPerEpoch());
        assertEquals(List.of(List.of(0, 1, 2, 3), List.of(4, 5, 6, 7)), collect(l.epoch(0)));
        assertEquals(2, loader(8).batchSize(4).dropLast(true).build().batchesPerEpoch());
        assertEquals(0, loader(3).batchSize(4).dropLast(true).build().batchesPerEpoch());
    }

    @Test
    void shuffledOrderShouldBeAPermutationThatDependsOnlyOnSeedAndEpoch() {
        var a = loader(100).batchSize(7).shuffle(42).build();
        var b = loader(100).batchSize(7).shuffle(42).prefetch(2).build();
        for (int e = 0; e < 3; e++) {
            int[] order = a.order(e);
            assertArrayEquals(IntStream.range(0, 100).toArray(), Arrays.stream(order).sorted().toArray());
            assertArrayEquals(order, b.order(e));
            assertEquals(collect(a.epoch(e)), collect(b.epoch(e)), "epoch " + e);
        }
        assertFalse(Arrays.equals(a.order(0), a.order(1)), "epochs should differ");
        assertFalse(Arrays.equals(a.order(0), loader(100).shuffle(43).build().order(0)), "seeds should differ");
        assertFalse(Arrays.equals(a.order(0), IntStream.range(0, 100).toArray()), "shuffle should move something");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void resumingAtABatchShouldSeeTheSameBatchesAsAnUninterruptedRun(int prefetch) {
        var l = loader(50).batchSize(6).shuffle(7).prefetch(prefetch).build();
        List<List<Integer>> full = collect(l.epoch(3));
        for (int start : new int[] {0, 1, 4, 8, 9}) {
            assertEquals(full.subList(start, full.size()), collect(l.epoch(3, start)), "start " + start);
        }
        assertEquals(full.get(5), l.batch(3, 5));
        try (var batches = l.epoch(3, 4)) {
            assertEquals(4, batches.nextBatchIndex());
            batches.next();
            assertEquals(5, batches.nextBatchIndex());
        }
    }

    @Test
    void badSettingsShouldBeRejectedNamingTheValue() {
        var zero = assertThrows(IllegalArgumentException.class, () -> loader(4).batchSize(0));
        assertTrue(zero.getMessage().contains("0"), zero.getMessage());
        var negative = assertThrows(IllegalArgumentException.class, () -> loader(4).batchSize(-3));
        assertTrue(negative.getMessage().contains("-3"), negative.getMessage());
        var prefetch = assertThrows(IllegalArgumentException.class, () -> loader(4).prefetch(-1));
        assertTrue(prefetch.getMessage().contains("-1"), prefetch.getMessage());
        var l = loader(10).batchSize(4).build();
        var start = assertThrows(IllegalArgumentException.class, () -> l.epoch(0, 4));
        assertTrue(start.getMessage().contains("4"), start.getMessage());
        assertThrows(IllegalArgumentException.class, () -> l.epoch(-1));
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void aFailingExampleShouldSurfaceInTheCallerNamingTheBatch(int prefetch) {
        RuntimeException boom = new IllegalStateException("bad example 9");
        Dataset<Integer> failing = new Dataset<>() {
            @Override public int size() { return 20; }
            @Override public Integer get(int i) {
                if (i == 9) throw boom;
                return i;
            }
        };
        var l = DataLoader.builder(failing, List::copyOf).batchSize(4).prefetch(prefetch).name("failing").build();
        assertTimeoutPreemptively(NO_HANG, () -> {
            Batches<List<Integer>> batches = l.epoch(1);
            assertEquals(List.of(0, 1, 2, 3), batches.next());
            assertEquals(List.of(4, 5, 6, 7), batches.next());
            var e = assertThrows(DataLoaderException.class, batches::next);
            assertSame(boom, e.getCause());
            assertEquals(2, e.batchIndex());
            assertEquals(1, e.epoch());
            assertTrue(e.getMessage().contains("batch 2 of epoch 1"), e.getMessage());
            assertTrue(e.getMessage().contains("failing"), e.getMessage());
            assertFalse(batches.hasNext(), "a failed iteration ends");
            if (batches.workerName() != null) assertFalse(threadAlive(batches.workerName()));
        });
    }

    @Test
    void aFailingCollateShouldSurfaceToo() {
        var l = DataLoader.builder(range(8), (List<Integer> items) -> {
            if (items.contains(5)) throw new ArithmeticException("collate");
            return items;
        }).batchSize(2).prefetch(1).build();
        assertTimeoutPreemptively(NO_HANG, () -> {
            try (var batches = l.epoch(0)) {
                batches.next();
                batches.next();
                var e = assertThrows(DataLoaderException.class, batches::next);
                assertEquals(2, e.batchIndex());
                assertTrue(e.getCause() instanceof ArithmeticException);
            }
        });
    }

    @Test
    void closingEarlyShouldStopTheWorker() {
        var l = DataLoader.builder(slow(1_000, 2), List::copyOf).batchSize(4).prefetch(3).name("early-close").build();
        assertTimeoutPreemptively(NO_HANG, () -> {
            String name;
            try (var batches = l.epoch(0)) {
                name = batches.workerName();
                assertTrue(threadAlive(name), "worker should be running");
                for (List<Integer> b : batches) {
                    assertEquals(List.of(0, 1, 2, 3), b);
                    break;
                }
            }
            assertFalse(threadAlive(name), "worker should have stopped on close");
        });
    }

    @Test
    void startingAnotherEpochShouldStopTheAbandonedOne() {
        var l = DataLoader.builder(slow(1_000, 2), List::copyOf).batchSize(4).prefetch(2).name("abandoned").build();
        assertTimeoutPreemptively(NO_HANG, () -> {
            var first = l.epoch(0);
            first.next(); // then abandoned without close, as after a break
            var second = l.epoch(1);
            assertFalse(threadAlive(first.workerName()), "the abandoned worker should be stopped");
            assertFalse(first.hasNext());
            assertTrue(threadAlive(second.workerName()));
            second.close();
        });
    }

    @Test
    void workerThreadShouldBeANamedDaemon() {
        var l = DataLoader.builder(slow(100, 2), List::copyOf).batchSize(4).prefetch(1).name("named").build();
        try (var batches = l.epoch(2)) {
            Thread t = thread(batches.workerName());
            assertEquals("symbiont-data-named-e2", batches.workerName());
            assertTrue(t == null || t.isDaemon(), "daemon");
        }
    }

    @Test
    void workerShouldCreateTensorsOnTheCallersBackend() {
        var reference = Backends.get("reference");
        var l = DataLoader.builder(range(8), (List<Integer> items) -> Tensor.fromArray(
                items.stream().mapToLong(Integer::longValue).toArray(), items.size())).batchSize(4).prefetch(2).build();
        try (var scope = Backends.use(reference); var batches = l.epoch(0)) {
            for (Tensor t : batches) assertSame(reference, t.backend());
        }
    }

    @Test
    void statsShouldCountBatchesAndTime() {
        var l = DataLoader.builder(slow(12, 1), List::copyOf).batchSize(4).prefetch(0).build();
        var before = l.stats();
        collect(l.epoch(0));
        var s = l.stats().minus(before);
        assertEquals(3, s.batches());
        assertTrue(s.prepareNanos() >= 12 * 1_000_000L, s.toString());
        assertTrue(s.waitNanos() >= s.prepareNanos(), "without prefetch the caller waits for the whole preparation: " + s);
    }

    @Test
    void aSecondLoopOverTheSameIterationShouldBeRefused() {
        var l = loader(4).batchSize(2).build();
        try (var batches = l.epoch(0)) {
            batches.iterator();
            assertThrows(IllegalStateException.class, batches::iterator);
        }
    }

    @Test
    void anEmptyDatasetShouldGiveNoBatches() {
        var l = loader(0).batchSize(3).prefetch(2).build();
        assertEquals(0, l.batchesPerEpoch());
        assertEquals(List.of(), collect(l.epoch(0)));
    }

    /** A dataset whose get() sleeps, like one that reads and decodes from disk. */
    static Dataset<Integer> slow(int size, long millis) {
        return new Dataset<>() {
            @Override public int size() { return size; }
            @Override public Integer get(int i) {
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", e);
                }
                return i;
            }
        };
    }

    static Thread thread(String name) {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(name)).findFirst().orElse(null);
    }

    static boolean threadAlive(String name) {
        Thread t = thread(name);
        return t != null && t.isAlive();
    }

    /** Example i of epoch e is 100·e + i, so a batch shows which epoch each example was read for. */
    private static Dataset<Integer> byEpoch(int n) {
        return new Dataset<>() {
            @Override public int size() { return n; }
            @Override public Integer get(int index) { return get(index, 0); }
            @Override public Integer get(int index, int epoch) { return 100 * epoch + index; }
        };
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 2})
    void examplesShouldBeReadForTheEpochBeingIterated(int prefetch) {
        var l = DataLoader.builder(byEpoch(5), List::<Integer>copyOf).batchSize(3).prefetch(prefetch).build();
        assertEquals(List.of(List.of(200, 201, 202), List.of(203, 204)), collect(l.epoch(2)));
        assertEquals(List.of(304, 303), List.copyOf(DataLoader.builder(byEpoch(5), List::<Integer>copyOf).batchSize(3).build()
                .batch(3, 1)).reversed());
        // A slice forwards the epoch to the dataset it cuts.
        assertEquals(List.of(List.of(102, 103)), collect(DataLoader.builder(byEpoch(5).slice(2, 4), List::<Integer>copyOf)
                .batchSize(2).build().epoch(1)));
    }
}
