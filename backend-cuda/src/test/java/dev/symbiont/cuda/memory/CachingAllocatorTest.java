package dev.symbiont.cuda.memory;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CachingAllocatorTest {
    private static final long MiB = 1L << 20;

    private final FakeDeviceMemory device = new FakeDeviceMemory(64 * MiB);
    private final CachingAllocator allocator = new CachingAllocator(device);

    @Test
    void requestsRoundUpTo512BytesAndSegmentsFollowPyTorchSizes() {
        assertEquals(512, CachingAllocator.roundSize(0));
        assertEquals(512, CachingAllocator.roundSize(1));
        assertEquals(1024, CachingAllocator.roundSize(513));
        assertEquals(2 * MiB, CachingAllocator.segmentSize(MiB), "a 1 MiB request is still small");
        assertEquals(20 * MiB, CachingAllocator.segmentSize(MiB + 512));
        assertEquals(20 * MiB, CachingAllocator.segmentSize(10 * MiB - 512));
        assertEquals(10 * MiB, CachingAllocator.segmentSize(10 * MiB));
        assertEquals(12 * MiB, CachingAllocator.segmentSize(10 * MiB + 512), "rounded up to 2 MiB");
    }

    @Test
    void aFreedBlockIsReusedWithoutAnotherMalloc() {
        DeviceBlock a = allocator.allocate(1000);
        assertEquals(1024, a.bytes());
        allocator.free(a);
        DeviceBlock b = allocator.allocate(900);
        assertEquals(a.address(), b.address(), "best fit takes the cached block");
        assertEquals(1, device.mallocs);
        assertEquals(0, device.frees);
    }

    @Test
    void smallRequestsShareOneTwoMebibyteSegment() {
        DeviceBlock a = allocator.allocate(4096);
        DeviceBlock b = allocator.allocate(8192);
        DeviceBlock c = allocator.allocate(MiB);
        assertEquals(1, device.mallocs, "all three fit in the first 2 MiB segment");
        assertEquals(a.address() + 4096, b.address(), "the second is carved right after the first");
        assertEquals(b.address() + 8192, c.address());
        assertEquals(2 * MiB, allocator.reservedBytes());
        assertEquals(4096 + 8192 + MiB, allocator.allocatedBytes());
    }

    @Test
    void smallAndLargePoolsDoNotShareSegments() {
        DeviceBlock small = allocator.allocate(512);
        allocator.free(small);
        DeviceBlock large = allocator.allocate(MiB + 1);
        assertEquals(2, device.mallocs, "a cached small segment does not serve a large request");
        assertEquals(2 * MiB + 20 * MiB, allocator.reservedBytes());
        assertEquals(MiB + 512, large.bytes());
    }

    @Test
    void freedNeighboursMergeSoTheWholeSegmentServesALargerRequest() {
        DeviceBlock a = allocator.allocate(MiB / 2);
        DeviceBlock b = allocator.allocate(MiB / 2);
        DeviceBlock c = allocator.allocate(MiB / 2);
        allocator.free(a);
        allocator.free(c);
        allocator.free(b); // merges with both neighbours and the free tail
        DeviceBlock whole = allocator.allocate(MiB);
        assertEquals(a.address(), whole.address(), "the merged block starts at the segment's base");
        assertEquals(1, device.mallocs);
    }

    @Test
    void aLargeBlockSplitsOnlyWhenMoreThanOneMebibyteRemains() {
        DeviceBlock first = allocator.allocate(2 * MiB); // a 20 MiB segment, split: 18 MiB remain
        assertEquals(2 * MiB, first.bytes());
        DeviceBlock second = allocator.allocate(17 * MiB + 512); // leaves 1 MiB - 512: not split off
        assertEquals(first.address() + 2 * MiB, second.address());
        assertEquals(18 * MiB, second.bytes(), "the small remainder stays with the block");
        assertEquals(1, device.mallocs);
        assertEquals(20 * MiB, allocator.allocatedBytes());
    }

    @Test
    void peakFollowsTheHighWaterMarkUntilReset() {
        DeviceBlock a = allocator.allocate(MiB);
        DeviceBlock b = allocator.allocate(MiB);
        allocator.free(a);
        assertEquals(MiB, allocator.allocatedBytes());
        assertEquals(2 * MiB, allocator.peakBytes());
        allocator.resetPeak();
        assertEquals(MiB, allocator.peakBytes());
        allocator.free(b);
        assertEquals(0, allocator.allocatedBytes());
        assertEquals(MiB, allocator.peakBytes());
    }

    @Test
    void emptyCacheReturnsOnlyWholeFreeSegments() {
        DeviceBlock kept = allocator.allocate(512);        // small segment, partly in use
        DeviceBlock dropped = allocator.allocate(12 * MiB); // its own 12 MiB segment
        allocator.free(dropped);
        allocator.emptyCache();
        assertEquals(1, device.frees);
        assertEquals(2 * MiB, allocator.reservedBytes());
        assertEquals(2 * MiB, device.usedBytes());
        allocator.free(kept);
        allocator.emptyCache();
        assertEquals(0, allocator.reservedBytes());
        assertEquals(0, device.usedBytes());
    }

    @Test
    void outOfMemoryEmptiesTheCacheAndRetriesOnce() {
        DeviceBlock cached = allocator.allocate(40 * MiB);
        allocator.free(cached);
        DeviceBlock big = allocator.allocate(50 * MiB); // 40 cached + 50 > 64: fails, frees the cache, succeeds
        assertEquals(50 * MiB, big.bytes());
        assertEquals(1, device.frees);
        assertEquals(50 * MiB, allocator.reservedBytes());
    }

    @Test
    void outOfMemoryAfterTheRetrySaysWhatWasAskedHeldCachedAndFree() {
        DeviceBlock held = allocator.allocate(30 * MiB);
        DeviceBlock cachedSmall = allocator.allocate(4096);
        allocator.free(cachedSmall); // its segment is whole and free again: emptied by the retry
        var e = assertThrows(DeviceOutOfMemoryException.class, () -> allocator.allocate(40 * MiB));
        String m = e.getMessage();
        assertTrue(m.startsWith("CachingAllocator.allocate: CUDA_ERROR_OUT_OF_MEMORY (tried to allocate 40.00 MiB (41943040 bytes)"), m);
        assertTrue(m.contains("30.00 MiB (31457280 bytes) allocated and 0 B cached (reserved 30.00 MiB"), m);
        assertTrue(m.contains("the device has 34.00 MiB (35651584 bytes) free of 64.00 MiB (67108864 bytes) total"), m);
        assertTrue(e.outOfMemory());
        assertEquals(41943040, e.requestedBytes());
        assertEquals(1, device.frees, "the cached small segment was returned before the retry");
        assertEquals(30 * MiB, allocator.allocatedBytes(), "a failed request changes no counter");
        allocator.free(held);
    }

    @Test
    void freeingTwiceIsAnErrorNamingTheBlock() {
        DeviceBlock a = allocator.allocate(2048);
        DeviceBlock b = allocator.allocate(2048);
        allocator.free(a);
        allocator.free(b); // b merges into a's block
        var e = assertThrows(IllegalStateException.class, () -> allocator.free(b));
        assertTrue(e.getMessage().contains("block 0x" + Long.toHexString(b.address()) + " (2048 bytes) is already free"), e.getMessage());
        assertThrows(IllegalStateException.class, () -> allocator.free(a));
        assertEquals(0, allocator.allocatedBytes());
    }

    @Test
    void aBlockOfAnotherAllocatorIsRefused() {
        DeviceBlock foreign = new CachingAllocator(device).allocate(512);
        var e = assertThrows(IllegalArgumentException.class, () -> allocator.free(foreign));
        assertTrue(e.getMessage().contains("was not allocated by this allocator"), e.getMessage());
        assertNotEquals(0, foreign.address());
    }

    @Test
    void aRepeatedStepReservesNothingNewAfterItsFirstRun() {
        long[] activations = {3 * MiB + 100, 700_000, 4096, 12 * MiB, 513, 3 * MiB + 100, 64 * 1024};
        long reservedAfterWarmUp = 0;
        int mallocsAfterWarmUp = 0;
        for (int step = 0; step < 100; step++) {
            var held = new java.util.ArrayList<DeviceBlock>();
            for (long bytes : activations) held.add(allocator.allocate(bytes));
            java.util.Collections.shuffle(held, new java.util.Random(step)); // backward frees in its own order
            held.forEach(allocator::free);
            if (step == 0) {
                reservedAfterWarmUp = allocator.reservedBytes();
                mallocsAfterWarmUp = device.mallocs;
            }
        }
        assertEquals(reservedAfterWarmUp, allocator.reservedBytes(), "device memory is flat after the first step");
        assertEquals(mallocsAfterWarmUp, device.mallocs, "every later step is served from the cache");
        assertEquals(0, allocator.allocatedBytes());
    }
}
