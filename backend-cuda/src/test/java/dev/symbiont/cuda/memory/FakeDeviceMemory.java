package dev.symbiont.cuda.memory;

import dev.symbiont.cuda.driver.CudaException;
import dev.symbiont.cuda.driver.DeviceInfo;
import dev.symbiont.cuda.driver.Dim3;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.KernelArgs;
import dev.symbiont.cuda.driver.MemInfo;
import dev.symbiont.cuda.driver.ModuleImage;

import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * A device that has memory and nothing else: a capacity-limited address space whose
 * {@code malloc} fails with {@code CUDA_ERROR_OUT_OF_MEMORY} like the driver's, counting the
 * calls the caching allocator exists to avoid. Streams, copies and launches are not its job.
 */
public final class FakeDeviceMemory implements Driver {
    private final long capacity;
    private final int devices;
    private final Map<Long, Long> live = new HashMap<>();
    private long next = 0x7f00_0000_0000L;
    private long used;
    int mallocs;
    int frees;

    FakeDeviceMemory(long capacity) {
        this(capacity, 1);
    }

    /** {@code devices} alike, each reported as an sm_90 with {@code capacity} bytes (for the provider's probe). */
    public FakeDeviceMemory(long capacity, int devices) {
        this.capacity = capacity;
        this.devices = devices;
    }

    @Override
    public long malloc(long bytes) {
        if (used + bytes > capacity) {
            throw new CudaException("cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY", bytes + " bytes");
        }
        long address = next;
        next += Math.ceilDiv(bytes, 256) * 256 + 4096; // a gap, so neighbouring segments never look contiguous
        live.put(address, bytes);
        used += bytes;
        mallocs++;
        return address;
    }

    @Override
    public void free(long address) {
        Long bytes = live.remove(address);
        if (bytes == null) throw new CudaException("cuMemFree", "CUDA_ERROR_INVALID_VALUE", "0x" + Long.toHexString(address));
        used -= bytes;
        frees++;
    }

    @Override public MemInfo memInfo() { return new MemInfo(capacity - used, capacity); }

    /** Bytes the driver has handed out and not had back. */
    long usedBytes() { return used; }

    @Override public String describe() { return "fake device memory"; }

    @Override public int deviceCount() { return devices; }

    @Override public DeviceInfo deviceInfo(int ordinal) { return new DeviceInfo("Fake GPU", 9, 0, capacity, 132, 1024, 232448, 32); }

    @Override public void makeCurrent(int ordinal) {}

    @Override public MemorySegment mallocHost(long bytes) { throw unsupported(); }

    @Override public void freeHost(MemorySegment pinned) { throw unsupported(); }

    @Override public Stream createStream() { throw unsupported(); }

    @Override public void destroyStream(Stream stream) { throw unsupported(); }

    @Override public void synchronize(Stream stream) { throw unsupported(); }

    @Override public void copyToDevice(long dst, MemorySegment source, Stream stream) { throw unsupported(); }

    @Override public void copyToHost(MemorySegment target, long src, Stream stream) { throw unsupported(); }

    @Override public void copyDeviceToDevice(long dst, long src, long bytes, Stream stream) { throw unsupported(); }

    @Override public void zero(long dst, long bytes, Stream stream) { throw unsupported(); }

    @Override public Event record(Stream stream) { throw unsupported(); }

    @Override public float elapsedMillis(Event start, Event end) { throw unsupported(); }

    @Override public void destroyEvent(Event event) { throw unsupported(); }

    @Override public void waitEvent(Stream stream, Event event) { throw unsupported(); }

    @Override public boolean isComplete(Event event) { throw unsupported(); }

    @Override public Module load(ModuleImage image) { throw unsupported(); }

    @Override public Function function(Module module, String name) { throw unsupported(); }

    @Override
    public void launch(Function function, Dim3 grid, Dim3 block, int sharedBytes, Stream stream, KernelArgs args) {
        throw unsupported();
    }

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("FakeDeviceMemory models device memory only");
    }
}
