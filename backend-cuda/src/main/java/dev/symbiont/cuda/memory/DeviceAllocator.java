package dev.symbiont.cuda.memory;

/**
 * Device memory for one backend instance (one device, one stream). Blocks go back to the
 * allocator by {@link #free} as soon as their storage is released; the allocator may keep them
 * cached for reuse rather than return them to the driver.
 */
public interface DeviceAllocator {

    /** A block of at least {@code bytes} bytes (256-byte aligned), usable by work on the backend's stream. */
    DeviceBlock allocate(long bytes);

    /** Returns a block; freeing one twice is an error naming the block. */
    void free(DeviceBlock block);

    /** Returns every cached (free) block to the driver. */
    void emptyCache();

    /** Bytes in blocks handed out and not yet freed. */
    long allocatedBytes();

    /** The most {@link #allocatedBytes} since the last {@link #resetPeak}. */
    long peakBytes();

    void resetPeak();

    /** Bytes held from the driver: allocated plus cached. */
    long reservedBytes();
}
