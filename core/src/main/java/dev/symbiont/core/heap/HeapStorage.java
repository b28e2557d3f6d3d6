package dev.symbiont.core.heap;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.AllocationOrder;
import dev.symbiont.core.memory.MemoryTracker;
import dev.symbiont.core.DType;

import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * Storage on the Java heap: a float[] (float32), int[] (int32), long[] (int64) or short[]
 * (bfloat16/float16 bits). Shared by the reference and CPU backends.
 *
 * <p>Every primitive of those backends reaches an operand's array through {@link #checked} (or
 * {@link #floats}), which is where a use after {@link #release()} is caught when
 * {@link ReleaseCheck} poisons released storages.
 */
public final class HeapStorage implements Storage {
    private final Backend backend;
    private final DType dtype;
    private final Object array;
    private final int size;
    private final Cleaner.Cleanable cleanable;
    /**
     * The pool the array came from and goes back to on {@link #release()}; null for arrays not
     * from a pool. The storage returns the array itself rather than leaving an action that owns
     * the array with the memory tracker: such an action kept every pooled array of an unreleased
     * storage reachable for a collection after the storage died (the tracker drops it only once
     * it has seen the storage collected), so a loop that never released its outputs — an eval
     * or forward-only loop — grew the heap by every output it made (measured: 2.5 GB live after
     * a few seconds of Linear calls, and each fresh 2 MiB page-faulted in at 5 ms on a VM).
     */
    private final BufferPool pool;
    /** 1 once the array went back to the pool (or must never): a second release does nothing. */
    private volatile int recycled;
    private static final AtomicIntegerFieldUpdater<HeapStorage> RECYCLED =
            AtomicIntegerFieldUpdater.newUpdater(HeapStorage.class, "recycled");
    private final long serial = AllocationOrder.next();
    /** Set only by a poisoning release; checked on every access through {@link #checked}. */
    private boolean released;

    private HeapStorage(Backend backend, DType dtype, Object array, int size, MemoryTracker tracker, BufferPool pool) {
        this.backend = backend;
        this.dtype = dtype;
        this.array = array;
        this.size = size;
        this.pool = pool;
        this.cleanable = tracker.track(this, (long) size * dtype.byteSize());
    }

    /** A zero-filled buffer of {@code size} elements. */
    public static HeapStorage allocate(Backend backend, MemoryTracker tracker, DType dtype, int size) {
        return new HeapStorage(backend, dtype, BufferPool.newArray(dtype, size), size, tracker, null);
    }

    /**
     * A buffer of {@code size} elements from {@code pool}, which takes its array back when the
     * storage is released (not when it is collected: see {@link MemoryTracker}). {@code zeroed} false (PyTorch's {@code torch.empty}) is only
     * for an op that writes every element: the array may hold a previous user's values. While
     * {@link ReleaseCheck#poisoning()} nothing is recycled and an unzeroed buffer is new and filled
     * with the poison values, so an op that leaves an element unwritten shows NaN.
     */
    public static HeapStorage allocate(Backend backend, MemoryTracker tracker, BufferPool pool, DType dtype, int size,
                                       boolean zeroed) {
        boolean poolable = pool.pools(dtype, size);
        if (zeroed && !poolable) return allocate(backend, tracker, dtype, size); // a small op's path: no switch to read
        if (ReleaseCheck.poisoning()) {
            HeapStorage fresh = allocate(backend, tracker, dtype, size);
            if (!zeroed) fresh.poison();
            return fresh;
        }
        if (!poolable) return allocate(backend, tracker, dtype, size);
        return new HeapStorage(backend, dtype, pool.take(dtype, size, zeroed), size, tracker, pool);
    }

    /** Wraps an array the caller hands over (no copy); its type must match the dtype. */
    public static HeapStorage wrap(Backend backend, MemoryTracker tracker, DType dtype, Object array) {
        int size = switch (dtype) {
            case FLOAT32 -> ((float[]) array).length;
            case INT32 -> ((int[]) array).length;
            case INT64 -> ((long[]) array).length;
            case BFLOAT16, FLOAT16 -> ((short[]) array).length;
        };
        return new HeapStorage(backend, dtype, array, size, tracker, null);
    }

    /** The storage behind a tensor of this backend; anything else is a programming error. */
    public static HeapStorage of(Storage storage) {
        if (storage instanceof HeapStorage h) return h;
        throw new IllegalArgumentException("expected a heap storage, got " + storage.getClass().getSimpleName()
                + " from backend " + storage.backend().name() + "; move the tensor with to(backend)");
    }

    /**
     * The heap storage behind {@code storage}, checked to hold every element {@code layout}
     * addresses (non-negative offset and strides, last index inside); else an error naming the op.
     */
    public static HeapStorage checked(String op, Storage storage, dev.symbiont.core.Layout layout) {
        HeapStorage h = of(storage);
        if (h.released) throw ReleaseCheck.usedAfterRelease(op, h);
        if (layout.numel() > 0 && (layout.offset() < 0 || layout.maxIndex() >= h.size() || hasNegativeStride(layout))) {
            throw new IllegalArgumentException(op + ": " + layout + " does not fit in a storage of " + h.size() + " elements");
        }
        return h;
    }

    /** The float[] behind a float32 operand, checked as {@link #checked}; any other dtype is an error naming the op. */
    public static float[] floats(String op, Storage storage, dev.symbiont.core.Layout layout) {
        if (storage.dtype() != DType.FLOAT32) {
            throw new IllegalArgumentException(op + ": expected float32, got " + storage.dtype());
        }
        return checked(op, storage, layout).floats();
    }

    private static boolean hasNegativeStride(dev.symbiont.core.Layout layout) {
        for (int d = 0; d < layout.rank(); d++) if (layout.stride(d) < 0 && layout.size(d) > 1) return true;
        return false;
    }

    @Override public Backend backend() { return backend; }
    @Override public DType dtype() { return dtype; }
    @Override public long size() { return size; }
    @Override public long serial() { return serial; }

    /** The element count as the int a Java array has. */
    public int length() { return size; }

    public Object array() { return array; }
    public float[] floats() { return (float[]) array; }
    public int[] ints() { return (int[]) array; }
    public long[] longs() { return (long[]) array; }
    public short[] shorts() { return (short[]) array; }

    /**
     * Gives the bytes back now and a pooled array to its pool. While {@link ReleaseCheck#poisoning()}
     * it instead poisons the buffer and marks it released, and the array is never recycled.
     */
    @Override
    public void release() {
        if (!released && ReleaseCheck.poisoning()) {
            RECYCLED.set(this, 1); // a poisoned array never goes back
            poison();
            released = true;
        }
        cleanable.clean();
        if (pool != null && RECYCLED.compareAndSet(this, 0, 1)) pool.put(dtype, array);
    }

    /** Whether the array came from a buffer pool (and goes back to it). */
    public boolean pooled() { return pool != null; }

    /** Whether a poisoning release has happened. */
    public boolean isReleased() { return released; }

    private void poison() {
        switch (dtype) {
            case FLOAT32 -> Arrays.fill(floats(), Float.NaN);
            case INT32 -> Arrays.fill(ints(), Integer.MIN_VALUE);
            case INT64 -> Arrays.fill(longs(), Long.MIN_VALUE);
            case BFLOAT16 -> Arrays.fill(shorts(), (short) 0x7FC0);
            case FLOAT16 -> Arrays.fill(shorts(), (short) 0x7E00);
        }
    }
}
