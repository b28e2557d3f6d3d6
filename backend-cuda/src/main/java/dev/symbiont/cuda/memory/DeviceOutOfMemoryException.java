package dev.symbiont.cuda.memory;

import dev.symbiont.cuda.driver.CudaException;
import dev.symbiont.cuda.driver.MemInfo;

/**
 * The device had no memory left for a request even after the caching allocator emptied its
 * cache, PyTorch's {@code torch.OutOfMemoryError} for the JVM. A {@link CudaException} (a
 * runtime exception the caller may catch and answer, e.g. with a smaller batch), not a
 * {@link OutOfMemoryError}, which names the Java heap and is a JVM error.
 */
public final class DeviceOutOfMemoryException extends CudaException {
    private final long requestedBytes;

    public DeviceOutOfMemoryException(long requestedBytes, long allocatedBytes, long reservedBytes, MemInfo device) {
        super("CachingAllocator.allocate", "CUDA_ERROR_OUT_OF_MEMORY",
                "tried to allocate " + bytes(requestedBytes) + "; this allocator holds " + bytes(allocatedBytes)
                        + " allocated and " + bytes(reservedBytes - allocatedBytes) + " cached (reserved "
                        + bytes(reservedBytes) + "); the device has " + (device == null ? "unknown"
                        : bytes(device.freeBytes()) + " free of " + bytes(device.totalBytes()) + " total")
                        + "; release tensors you no longer need, or lower the batch size");
        this.requestedBytes = requestedBytes;
    }

    /** Bytes the failed request asked for. */
    public long requestedBytes() { return requestedBytes; }

    /** "20.00 MiB (20971520 bytes)": readable, and exact for whoever compares numbers. */
    static String bytes(long n) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = 0;
        while (Math.abs(v) >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return u == 0 ? n + " B" : String.format(java.util.Locale.ROOT, "%.2f %s (%d bytes)", v, units[u], n);
    }
}
