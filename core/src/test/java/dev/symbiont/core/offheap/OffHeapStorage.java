package dev.symbiont.core.offheap;

import dev.symbiont.core.DType;
import dev.symbiont.core.backend.AllocationOrder;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.memory.MemoryTracker;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;

/**
 * A buffer of native memory from a shared arena of its own, holding little-endian elements.
 * {@link #release()} frees it at once; a storage nobody released is freed when the collector
 * finds it unreachable (the cleaner's action holds the arena, never the storage).
 */
final class OffHeapStorage implements Storage {
    private static final Cleaner CLEANER = Cleaner.create();

    private final Backend backend;
    private final DType dtype;
    private final long size;
    private final MemorySegment segment;
    private final Cleaner.Cleanable memory;
    private final Cleaner.Cleanable counted;
    private final long serial = AllocationOrder.next();
    private volatile boolean released;

    private OffHeapStorage(Backend backend, MemoryTracker tracker, DType dtype, long size) {
        this.backend = backend;
        this.dtype = dtype;
        this.size = size;
        Arena arena = Arena.ofShared();
        this.segment = arena.allocate(size * dtype.byteSize(), dtype.byteSize()); // zero-filled
        this.memory = CLEANER.register(this, arena::close);
        this.counted = tracker.track(this, segment.byteSize());
    }

    /** A zero-filled buffer of {@code size} elements, counted in {@code tracker}. */
    static OffHeapStorage allocate(Backend backend, MemoryTracker tracker, DType dtype, long size) {
        if (size < 0) throw new IllegalArgumentException("allocate: negative size " + size + " for " + dtype);
        return new OffHeapStorage(backend, tracker, dtype, size);
    }

    /** The native memory, for {@code op}; an error naming it once the storage was released. */
    MemorySegment segment(String op) {
        if (released) {
            throw new IllegalStateException(op + ": storage used after release() (" + dtype + ", " + size + " elements)");
        }
        return segment;
    }

    @Override public Backend backend() { return backend; }
    @Override public DType dtype() { return dtype; }
    @Override public long size() { return size; }
    @Override public long serial() { return serial; }

    @Override
    public void release() {
        released = true;
        counted.clean();
        memory.clean();
    }
}
