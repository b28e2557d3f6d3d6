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
    /** The last allocation an access hit: most accesses of a kernel fall in the same one. */
    private long cachedBase = -1, cachedEnd = -1;
    private MemorySegment cached;

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
        if (cachedBase == address) cachedBase = cachedEnd = -1;
    }

    long used() { return used; }

    long capacity() { return capacity; }

    /** A view of {@code bytes} bytes at {@code address}, which must lie inside one allocation. */
    synchronized MemorySegment slice(long address, long bytes, String what) {
        if (address >= cachedBase && address + bytes <= cachedEnd) return cached.asSlice(address - cachedBase, bytes);
        Map.Entry<Long, MemorySegment> e = allocations.floorEntry(address);
        if (e != null && address + bytes <= e.getKey() + e.getValue().byteSize()) {
            cachedBase = e.getKey();
            cachedEnd = cachedBase + e.getValue().byteSize();
            cached = e.getValue();
            return cached.asSlice(address - cachedBase, bytes);
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
