package dev.symbiont.core.heap;

import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.memory.MemoryTracker;
import dev.symbiont.core.DType;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * The heap backends' buffer pool: which arrays it keeps (dtype and exact length, none below
 * its minimum, never more idle bytes than its cap), that released storages give their arrays
 * back and collected ones only their bytes (their arrays dying with them), that only a caller asking for an unzeroed buffer sees old values, that
 * wrapped arrays and poisoned releases are never recycled, and that the memory accounting still
 * counts live storages only.
 */
class BufferPoolTest {
    private static final int N = BufferPool.MIN_ELEMENTS * 2;
    private final ReferenceBackend backend = new ReferenceBackend();
    private final MemoryTracker tracker = new MemoryTracker();

    private HeapStorage take(BufferPool pool, int size, boolean zeroed) {
        return HeapStorage.allocate(backend, tracker, pool, DType.FLOAT32, size, zeroed);
    }

    @Test
    void aReleasedArrayIsHandedOutAgainUnzeroedOnlyToWhoAsksForThat() {
        assumeFalse(ReleaseCheck.poisoning(), "no recycling while releases poison");
        BufferPool pool = new BufferPool(1 << 24);
        HeapStorage first = take(pool, N, false);
        float[] array = first.floats();
        Arrays.fill(array, 7f);
        first.release();
        assertEquals(4L * N, pool.idleBytes());

        HeapStorage empty = take(pool, N, false);
        assertSame(array, empty.floats());
        assertEquals(7f, empty.floats()[N - 1], "an unzeroed buffer keeps what its last user wrote");
        empty.release();

        HeapStorage zeroed = take(pool, N, true);
        assertSame(array, zeroed.floats());
        for (float v : zeroed.floats()) assertEquals(0f, v);
        assertEquals(new BufferPool.Stats(0, 2, 1), pool.stats());
    }

    @Test
    void arraysAreKeptByDtypeAndExactLengthAndTinyOnesNotAtAll() {
        BufferPool pool = new BufferPool(1 << 24);
        float[] f = new float[N];
        pool.put(DType.FLOAT32, f);
        assertNotSame(f, pool.take(DType.FLOAT32, N + 1, false), "another length");
        assertTrue(pool.take(DType.INT32, N, false) instanceof int[], "another dtype");
        assertSame(f, pool.take(DType.FLOAT32, N, false));

        float[] tiny = new float[BufferPool.MIN_ELEMENTS - 1];
        pool.put(DType.FLOAT32, tiny);
        assertEquals(0, pool.idleBytes(), "below the minimum an array goes to the collector");
        assertNotSame(tiny, pool.take(DType.FLOAT32, tiny.length, false));

        long[] longs = new long[N];
        pool.put(DType.INT64, longs);
        assertSame(longs, pool.take(DType.INT64, N, true));
    }

    @Test
    void idleArraysNeverPassTheCapAndTheLeastRecentlyUsedLengthGoesFirst() {
        long each = 4L * N;
        BufferPool pool = new BufferPool(3 * each + 64); // room for three of these lengths, not four
        float[] a = new float[N], b = new float[N + 1], c = new float[N + 2], d = new float[N + 3];
        pool.put(DType.FLOAT32, a);
        pool.put(DType.FLOAT32, b);
        pool.put(DType.FLOAT32, c);
        pool.put(DType.FLOAT32, d); // past the cap: a, the least recently used length, is dropped
        assertTrue(pool.idleBytes() <= 3 * each + 64, "idle " + pool.idleBytes());
        assertNotSame(a, pool.take(DType.FLOAT32, N, false));
        assertSame(b, pool.take(DType.FLOAT32, N + 1, false));
        assertSame(d, pool.take(DType.FLOAT32, N + 3, false));

        BufferPool off = new BufferPool(0);
        off.put(DType.FLOAT32, a);
        assertEquals(0, off.idleBytes(), "a cap of 0 keeps nothing");
        assertNotSame(a, off.take(DType.FLOAT32, N, false));
    }

    @Test
    void aWrappedArrayIsNeverRecycled() {
        BufferPool pool = new BufferPool(1 << 24);
        float[] mine = new float[N];
        HeapStorage wrapped = HeapStorage.wrap(backend, tracker, DType.FLOAT32, mine);
        wrapped.release();
        assertEquals(0, pool.idleBytes());
        assertNotSame(mine, take(pool, N, false).floats());
        assertTrue(!wrapped.pooled());
    }

    @Test
    void aPoisonedReleaseIsNeverRecycledAndAnUnzeroedBufferStartsAsPoison() {
        BufferPool pool = new BufferPool(1 << 24);
        HeapStorage s = take(pool, N, false);
        float[] array = s.floats();
        try (var poison = ReleaseCheck.poison()) {
            s.release();
            HeapStorage fresh = take(pool, N, false);
            assertNotSame(array, fresh.floats());
            for (float v : fresh.floats()) assertTrue(Float.isNaN(v), "an unwritten element must show");
        }
        assertTrue(s.isReleased());
        assertEquals(0, pool.idleBytes());
        assertNotSame(array, take(pool, N, true).floats());
    }

    @Test
    void aCollectedStorageReturnsItsBytesButNotItsArray() {
        BufferPool pool = new BufferPool(1 << 24);
        long before = tracker.stats().allocatedBytes();
        float[] array = take(pool, N, false).floats(); // the storage is garbage at once, its array is not
        for (int i = 0; i < 20 && tracker.stats().allocatedBytes() != before; i++) MemoryTracker.collectGarbage();
        assertEquals(before, tracker.stats().allocatedBytes());
        assertEquals(0, pool.idleBytes());
        array[0] = 1f;
        assertNotSame(array, take(pool, N, false).floats());
    }

    @Test
    void anUnreleasedStoragesArrayDiesInTheSameCollectionAsTheStorage() {
        BufferPool pool = new BufferPool(1 << 24);
        java.lang.ref.WeakReference<float[]> array = new java.lang.ref.WeakReference<>(take(pool, N, false).floats());
        System.gc(); // one full collection: nothing but the dead storage may hold the array
        assertTrue(array.refersTo(null), "a pooled array outlived its unreleased storage's collection");
    }

    @Test
    void theAccountingCountsLiveStoragesAndNotIdleArrays() {
        assumeFalse(ReleaseCheck.poisoning(), "no recycling while releases poison");
        MemoryTracker.collectGarbage();
        long base = backend.memory().allocatedBytes();
        Storage s = backend.empty(DType.FLOAT32, N);
        assertEquals(base + 4L * N, backend.memory().allocatedBytes());
        s.release();
        assertEquals(base, backend.memory().allocatedBytes());
        assertEquals(4L * N, backend.pool().idleBytes());
        Storage again = backend.allocate(DType.FLOAT32, N);
        assertEquals(base + 4L * N, backend.memory().allocatedBytes());
        assertEquals(0, backend.pool().idleBytes());
        again.release();
    }

    @Test
    void concurrentUsersNeverShareAnArray() throws Exception {
        BufferPool pool = new BufferPool(1 << 22);
        int threads = 4, rounds = 300;
        AtomicInteger wrong = new AtomicInteger();
        ExecutorService exec = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int id = t;
                done.add(exec.submit(() -> {
                    for (int r = 0; r < rounds; r++) {
                        boolean zeroed = r % 3 == 0;
                        HeapStorage s = take(pool, N + (r % 2), zeroed);
                        float[] v = s.floats();
                        if (zeroed && v[r % v.length] != 0f) wrong.incrementAndGet();
                        float mark = id * 10_000 + r;
                        Arrays.fill(v, mark);
                        Thread.yield();
                        for (int i = 0; i < v.length; i += 97) if (v[i] != mark) wrong.incrementAndGet();
                        s.release();
                    }
                }));
            }
            for (Future<?> f : done) f.get();
        } finally {
            exec.shutdown();
        }
        assertEquals(0, wrong.get(), "an array was written by two users at once, or a zeroed one was not");
        assertTrue(pool.idleBytes() <= 1 << 22);
    }
}
