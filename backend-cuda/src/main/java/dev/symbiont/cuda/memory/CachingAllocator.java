package dev.symbiont.cuda.memory;

import dev.symbiont.cuda.driver.CudaException;
import dev.symbiont.cuda.driver.Driver;
import dev.symbiont.cuda.driver.MemInfo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeSet;

/**
 * Device memory cached for reuse, in the manner of PyTorch's CUDA caching allocator
 * ({@code c10/cuda/CUDACachingAllocator.cpp}): {@code cuMemAlloc} is slow and synchronises the
 * device, so freed blocks stay with the allocator and the next request of a fitting size takes
 * one of them without a driver call.
 *
 * <ul>
 *   <li>Requests are rounded up to {@value #MIN_BLOCK} bytes.
 *   <li>Requests up to {@value #SMALL_SIZE} bytes (1 MiB) come from the small pool, carved out of
 *       2 MiB segments; larger ones from the large pool, out of 20 MiB segments for requests under
 *       10 MiB and otherwise out of segments of the request rounded up to 2 MiB (PyTorch's sizes).
 *   <li>A request takes the smallest cached block that fits (best fit, lowest address on ties) and
 *       splits off the rest when it is worth keeping: at least {@value #MIN_BLOCK} bytes in the
 *       small pool, more than 1 MiB in the large pool.
 *   <li>A freed block merges with its free neighbours of the same segment, so a split is undone
 *       once all its parts are back.
 *   <li>{@link #emptyCache} returns whole free segments to the driver; an out-of-memory from the
 *       driver empties the cache and retries once, then throws {@link DeviceOutOfMemoryException}
 *       with the bytes asked, allocated, cached and free on the device.
 * </ul>
 *
 * One allocator serves one backend instance, whose work runs in order on one stream, so a block
 * freed by the host may be handed out again at once: work that reads it was queued earlier.
 * Thread-safe; every method acts on the device current on the calling thread.
 */
public final class CachingAllocator implements DeviceAllocator {
    static final long MIN_BLOCK = 512;
    static final long SMALL_SIZE = 1L << 20;
    static final long SMALL_SEGMENT = 2L << 20;
    static final long LARGE_SEGMENT = 20L << 20;
    static final long MIN_LARGE_ALLOC = 10L << 20;
    static final long ROUND_LARGE = 2L << 20;

    private static final Comparator<Block> BEST_FIT = Comparator.comparingLong((Block b) -> b.size).thenComparingLong(b -> b.address);

    private final Driver driver;
    private final TreeSet<Block> smallPool = new TreeSet<>(BEST_FIT);
    private final TreeSet<Block> largePool = new TreeSet<>(BEST_FIT);
    private long allocated;
    private long peak;
    private long reserved;

    public CachingAllocator(Driver driver) {
        this.driver = driver;
    }

    /** A block of a segment: allocated, or free and in its pool. Neighbours link the segment's blocks in address order. */
    private final class Block implements DeviceBlock {
        long address;
        long size;
        final boolean small;
        Block prev;
        Block next;
        boolean allocated;

        Block(long address, long size, boolean small) {
            this.address = address;
            this.size = size;
            this.small = small;
        }

        @Override public long address() { return address; }

        @Override public long bytes() { return size; }

        CachingAllocator owner() { return CachingAllocator.this; }

        @Override public String toString() { return "block 0x" + Long.toHexString(address) + " (" + size + " bytes)"; }
    }

    @Override
    public synchronized DeviceBlock allocate(long bytes) {
        if (bytes < 0) throw new IllegalArgumentException("CachingAllocator.allocate: bytes must be >= 0, got " + bytes);
        long size = roundSize(bytes);
        boolean small = size <= SMALL_SIZE;
        TreeSet<Block> pool = small ? smallPool : largePool;
        Block block = pool.ceiling(new Block(0, size, small));
        if (block != null) {
            pool.remove(block);
        } else {
            long segment = segmentSize(size);
            block = new Block(mallocRetryingOnce(segment, bytes), segment, small);
            reserved += segment;
        }
        if (shouldSplit(block, size)) split(block, size, pool);
        block.allocated = true;
        allocated += block.size;
        peak = Math.max(peak, allocated);
        return block;
    }

    @Override
    public synchronized void free(DeviceBlock handle) {
        if (!(handle instanceof Block block) || block.owner() != this) {
            throw new IllegalArgumentException("CachingAllocator.free: " + handle + " was not allocated by this allocator");
        }
        if (!block.allocated) {
            throw new IllegalStateException("CachingAllocator.free: " + block + " is already free (freed twice)");
        }
        block.allocated = false;
        allocated -= block.size;
        TreeSet<Block> pool = block.small ? smallPool : largePool;
        if (block.prev != null && !block.prev.allocated) block = absorbNext(block.prev, pool);
        if (block.next != null && !block.next.allocated) block = absorbNext(block, pool);
        pool.add(block);
    }

    @Override
    public synchronized void emptyCache() {
        for (TreeSet<Block> pool : List.of(smallPool, largePool)) {
            List<Block> whole = new ArrayList<>();
            for (Block b : pool) if (b.prev == null && b.next == null) whole.add(b);
            for (Block b : whole) {
                pool.remove(b);
                driver.free(b.address);
                reserved -= b.size;
            }
        }
    }

    @Override public synchronized long allocatedBytes() { return allocated; }

    @Override public synchronized long peakBytes() { return peak; }

    @Override public synchronized void resetPeak() { peak = allocated; }

    @Override public synchronized long reservedBytes() { return reserved; }

    /** Bytes a request of {@code bytes} occupies: a multiple of {@value #MIN_BLOCK}, at least one. */
    static long roundSize(long bytes) {
        return bytes < MIN_BLOCK ? MIN_BLOCK : Math.ceilDiv(bytes, MIN_BLOCK) * MIN_BLOCK;
    }

    /** Bytes of the segment asked from the driver when no cached block fits a (rounded) {@code size}. */
    static long segmentSize(long size) {
        if (size <= SMALL_SIZE) return SMALL_SEGMENT;
        if (size < MIN_LARGE_ALLOC) return LARGE_SEGMENT;
        return Math.ceilDiv(size, ROUND_LARGE) * ROUND_LARGE;
    }

    private static boolean shouldSplit(Block block, long size) {
        long remaining = block.size - size;
        return block.small ? remaining >= MIN_BLOCK : remaining > SMALL_SIZE;
    }

    /** Cuts {@code block} to {@code size} bytes; the rest becomes a free block of the same segment. */
    private void split(Block block, long size, TreeSet<Block> pool) {
        Block rest = new Block(block.address + size, block.size - size, block.small);
        rest.prev = block;
        rest.next = block.next;
        if (block.next != null) block.next.prev = rest;
        block.next = rest;
        block.size = size;
        pool.add(rest);
    }

    /** Merges {@code block}'s free successor into it; {@code block} must not be in the pool (it is re-added by the caller). */
    private Block absorbNext(Block block, TreeSet<Block> pool) {
        Block next = block.next;
        pool.remove(next);
        pool.remove(block);
        block.size += next.size;
        block.next = next.next;
        if (next.next != null) next.next.prev = block;
        return block;
    }

    private long mallocRetryingOnce(long segment, long requested) {
        try {
            return driver.malloc(segment);
        } catch (CudaException first) {
            if (!first.outOfMemory()) throw first;
        }
        emptyCache();
        try {
            return driver.malloc(segment);
        } catch (CudaException second) {
            if (!second.outOfMemory()) throw second;
            var oom = new DeviceOutOfMemoryException(requested, allocated, reserved, memInfoOrNull());
            oom.initCause(second);
            throw oom;
        }
    }

    private MemInfo memInfoOrNull() {
        try {
            return driver.memInfo();
        } catch (RuntimeException e) {
            return null; // the report must not hide the out-of-memory behind a second failure
        }
    }
}
