package dev.symbiont.cuda.ptx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.TreeMap;

/**
 * The simulated device's global memory: allocations at 256-byte aligned addresses with unmapped
 * gaps between them, so an access past an allocation's end falls outside every allocation and
 * is reported as compute-sanitizer's memcheck would: naming the address, the size of the access
 * and the nearest allocation.
 */
final class DeviceMemory {
    static final long BASE = 0x7_0000_0000L;
    static final long GAP = 4096;

    private final TreeMap<Long, MemorySegment> allocations = new TreeMap<>();
    private final Arena arena = Arena.ofShared();
    private final long capacity;
    private long next = BASE;
    private long used;
    /** The allocations accesses hit last: a kernel's accesses fall in its few operands, so the tree is rarely searched. */
    private static final int CACHED = 8;
    private final long[] cachedBase = new long[CACHED], cachedEnd = new long[CACHED];
    private final MemorySegment[] cached = new MemorySegment[CACHED];
    private int nextCached;

    DeviceMemory(long capacity) { this.capacity = capacity; }

    synchronized long allocate(long bytes) {
        long size = Math.max(1, bytes);
        if (used + size > capacity) return -1;
        long address = next;
        MemorySegment segment = arena.allocate(size, 256);
        segment.fill((byte) 0);
        allocations.put(address, segment);
        next = (address + size + GAP + 255) & ~255L;
        used += size;
        return address;
    }

    synchronized void free(long address) {
        MemorySegment s = allocations.remove(address);
        if (s == null) throw new PtxException("cuMemFree of 0x" + Long.toHexString(address) + ", which is not an allocation");
        used -= s.byteSize();
        java.util.Arrays.fill(cachedEnd, 0); // an empty range: no access hits it

    }

    long used() { return used; }

    long capacity() { return capacity; }

    /** A view of {@code bytes} bytes at {@code address}, which must lie inside one allocation. */
    synchronized MemorySegment slice(long address, long bytes, String what) {
        for (int i = 0; i < CACHED; i++) {
            if (address >= cachedBase[i] && address + bytes <= cachedEnd[i]) return cached[i].asSlice(address - cachedBase[i], bytes);
        }
        Map.Entry<Long, MemorySegment> e = allocations.floorEntry(address);
        if (e != null && address + bytes <= e.getKey() + e.getValue().byteSize()) {
            int i = nextCached;
            nextCached = (nextCached + 1) % CACHED;
            cachedBase[i] = e.getKey();
            cachedEnd[i] = cachedBase[i] + e.getValue().byteSize();
            cached[i] = e.getValue();
            return cached[i].asSlice(address - cachedBase[i], bytes);
        }
        throw new PtxException("out-of-bounds global " + what + " of " + bytes + " bytes at 0x" + Long.toHexString(address)
                + nearest(address));
    }

    private String nearest(long address) {
        Map.Entry<Long, MemorySegment> below = allocations.floorEntry(address);
        Map.Entry<Long, MemorySegment> above = allocations.ceilingEntry(address);
        StringBuilder s = new StringBuilder();
        if (below != null) {
            long end = below.getKey() + below.getValue().byteSize();
            s.append(", ").append(address - end >= 0 ? (address - end) + " bytes past the end of" : "overlapping the end of")
                    .append(" the allocation at 0x").append(Long.toHexString(below.getKey())).append(" of ")
                    .append(below.getValue().byteSize()).append(" bytes");
        }
        if (above != null && (below == null || above.getKey() - address < address - below.getKey())) {
            s.append(", ").append(above.getKey() - address).append(" bytes before the allocation at 0x")
                    .append(Long.toHexString(above.getKey()));
        }
        return s.isEmpty() ? ", in no allocation" : s.toString();
    }
}
