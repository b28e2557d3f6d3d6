package dev.symbiont.core.heap;

import dev.symbiont.core.DType;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * Idle heap arrays a backend hands out again instead of allocating — the CPU cousin of a GPU
 * caching allocator. Java zero-fills every new array, so an op whose output is written in full
 * pays a memory pass (and a collection) for nothing; from here such an op gets a used array
 * as it is ({@link #take} with {@code zeroed} false), every other caller a zeroed one.
 *
 * <p>Arrays are kept by dtype and exact length: a Java array cannot be split or shortened, and a
 * longer one would make {@link dev.symbiont.core.backend.Storage#size()} differ from the array's length, which kernels
 * (and EJML's direct path) read. A training step repeats its shapes exactly, so exact lengths
 * hit. Arrays under {@link #MIN_ELEMENTS} are never kept (allocating them is cheaper than the
 * bookkeeping), and idle arrays never hold more than the cap: past it the least recently used
 * lengths are dropped to the collector. Thread-safe; the lock guards O(1) work.
 *
 * <p>Arrays come back through {@link #put} when a storage the pool allocated is released (see
 * {@link HeapStorage}), never arrays handed in through {@code wrap}, and never after a
 * collection: a kernel may still be reading the array of a storage nobody references.
 */
public final class BufferPool {
    /** Property giving the most idle bytes a pool keeps (0 turns pooling off). */
    public static final String MAX_IDLE_PROPERTY = "symbiont.pool.maxIdleBytes";
    /** The fewest elements an array must have to be kept. */
    public static final int MIN_ELEMENTS = 4096;

    private final long maxIdleBytes;
    /** Idle arrays per (dtype, length), least recently used key first. */
    private final LinkedHashMap<Long, ArrayDeque<Object>> idle = new LinkedHashMap<>(16, 0.75f, true);
    private long idleBytes;
    private long hits, misses;

    /** A pool capped by {@value #MAX_IDLE_PROPERTY}, else an eighth of the maximum heap (at most 1 GiB). */
    public BufferPool() { this(defaultMaxIdleBytes()); }

    /** A pool that keeps at most {@code maxIdleBytes} of idle arrays (0: keeps nothing). */
    public BufferPool(long maxIdleBytes) {
        if (maxIdleBytes < 0) throw new IllegalArgumentException("buffer pool: negative cap " + maxIdleBytes);
        this.maxIdleBytes = maxIdleBytes;
    }

    private static long defaultMaxIdleBytes() {
        String v = System.getProperty(MAX_IDLE_PROPERTY);
        if (v == null || v.isBlank()) return Math.min(Runtime.getRuntime().maxMemory() / 8, 1L << 30);
        try {
            return Long.parseLong(v.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(MAX_IDLE_PROPERTY + ": expected a number of bytes, got '" + v + "'", e);
        }
    }

    /** Whether an array of this many elements is kept on return (and so worth taking from here). */
    public boolean pools(DType dtype, int size) {
        return size >= MIN_ELEMENTS && (long) size * dtype.byteSize() <= maxIdleBytes;
    }

    /**
     * An array of exactly {@code size} elements of the dtype's Java type: an idle one when there is
     * one (zero-filled first when {@code zeroed}, else as its last user left it), else a new one.
     */
    public Object take(DType dtype, int size, boolean zeroed) {
        Object array = pools(dtype, size) ? poll(dtype, size) : null;
        if (array == null) return newArray(dtype, size);
        if (zeroed) zero(array);
        return array;
    }

    /** Keeps {@code array} for a later {@link #take}, dropping least recently used arrays past the cap. */
    public void put(DType dtype, Object array) {
        int size = java.lang.reflect.Array.getLength(array);
        if (!pools(dtype, size)) return;
        long bytes = (long) size * dtype.byteSize();
        synchronized (this) {
            idle.computeIfAbsent(key(dtype, size), k -> new ArrayDeque<>()).push(array);
            idleBytes += bytes;
            evictPastCap();
        }
    }

    /** Bytes of idle arrays held now (not counted as live by the backend's {@link dev.symbiont.core.memory.MemoryTracker}). */
    public synchronized long idleBytes() { return idleBytes; }

    /** Takes served by an idle array, and takes of a poolable size that had to allocate. */
    public synchronized Stats stats() { return new Stats(idleBytes, hits, misses); }

    /** Drops every idle array to the collector. */
    public synchronized void clear() {
        idle.clear();
        idleBytes = 0;
    }

    /** What a pool holds and how often it served. */
    public record Stats(long idleBytes, long hits, long misses) {}

    private synchronized Object poll(DType dtype, int size) {
        long key = key(dtype, size);
        ArrayDeque<Object> q = idle.get(key);
        Object array = q == null ? null : q.poll();
        if (array == null) {
            misses++;
            return null;
        }
        if (q.isEmpty()) idle.remove(key);
        idleBytes -= (long) size * dtype.byteSize();
        hits++;
        return array;
    }

    private void evictPastCap() {
        Iterator<java.util.Map.Entry<Long, ArrayDeque<Object>>> it = idle.entrySet().iterator();
        while (idleBytes > maxIdleBytes && it.hasNext()) {
            var e = it.next();
            long each = (e.getKey() & 0xFFFF_FFFFL) * DType.values()[(int) (e.getKey() >>> 32)].byteSize();
            while (idleBytes > maxIdleBytes && e.getValue().pollLast() != null) idleBytes -= each;
            if (e.getValue().isEmpty()) it.remove();
        }
    }

    private static long key(DType dtype, int size) { return ((long) dtype.ordinal() << 32) | size; }

    /** A new, zero-filled array of the dtype's Java type (float[], int[], long[], short[] for halves). */
    public static Object newArray(DType dtype, int size) { return dev.symbiont.core.backend.HostSegments.newArray(dtype, size); }

    private static void zero(Object array) {
        switch (array) {
            case float[] f -> Arrays.fill(f, 0f);
            case int[] i -> Arrays.fill(i, 0);
            case long[] l -> Arrays.fill(l, 0L);
            case short[] s -> Arrays.fill(s, (short) 0);
            default -> throw new IllegalArgumentException("buffer pool: not a heap array: " + array.getClass());
        }
    }
}
