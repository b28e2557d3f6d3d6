package dev.symbiont.cuda;

import dev.symbiont.core.DType;
import dev.symbiont.core.backend.AllocationOrder;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.cuda.memory.DeviceAllocator;
import dev.symbiont.cuda.memory.DeviceBlock;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A buffer of device memory: a block of the backend's caching allocator. {@link #release()}
 * hands the block back at once (work queued on the backend's stream that still reads it runs
 * first, in stream order); the garbage collector is only the backstop for storages nobody released.
 */
public final class CudaStorage implements Storage {
    private static final Cleaner CLEANER = Cleaner.create();

    private final CudaBackend backend;
    private final DType dtype;
    private final long size;
    private final long serial = AllocationOrder.next();
    private final DeviceBlock block;
    private final Cleaner.Cleanable cleanable;
    private final AtomicBoolean released;

    CudaStorage(CudaBackend backend, DType dtype, long size, DeviceBlock block, DeviceAllocator allocator) {
        this.backend = backend;
        this.dtype = dtype;
        this.size = size;
        this.block = block;
        this.released = new AtomicBoolean();
        AtomicBoolean flag = released;
        this.cleanable = CLEANER.register(this, () -> {
            if (flag.compareAndSet(false, true)) allocator.free(block);
        });
    }

    /** The device address of element 0. */
    public long address() {
        if (released.get()) {
            throw new IllegalStateException("cuda storage of " + size + " " + dtype + " used after release()");
        }
        return block.address();
    }

    /** The device address of element {@code index}. */
    public long address(long index) { return address() + index * dtype.byteSize(); }

    @Override public Backend backend() { return backend; }

    @Override public DType dtype() { return dtype; }

    @Override public long size() { return size; }

    @Override public long serial() { return serial; }

    @Override
    public void release() {
        cleanable.clean();
    }

    @Override
    public String toString() { return "CudaStorage[" + size + " " + dtype + " at " + block + "]"; }
}
