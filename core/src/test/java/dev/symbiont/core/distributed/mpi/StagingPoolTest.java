package dev.symbiont.core.distributed.mpi;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The off-heap staging buffers: reused by size, a bounded number kept, all freed on close. */
class StagingPoolTest {
    @Test
    void aReleasedBufferIsReusedForTheSameSizeOnly() {
        try (StagingPool pool = new StagingPool()) {
            StagingPool.Staging a = pool.acquire(4000);
            assertTrue(a.segment().isNative());
            assertEquals(4000, a.segment().byteSize());
            assertEquals(0, a.segment().address() % Long.BYTES, "aligned for int64 and float64 elements");
            pool.release(a);
            assertNotSame(a, pool.acquire(4004), "another size is another buffer");
            assertSame(a, pool.acquire(4000));
            assertNotSame(a, pool.acquire(4000), "a buffer in use is not handed out twice");
            assertEquals(3, pool.allocated());
        }
    }

    @Test
    void onlyAFewFreeBuffersAreKept() {
        try (StagingPool pool = new StagingPool()) {
            List<StagingPool.Staging> used = new ArrayList<>();
            for (int i = 0; i < StagingPool.KEPT + 5; i++) used.add(pool.acquire(64L * (i + 1)));
            for (StagingPool.Staging s : used) pool.release(s);
            assertEquals(StagingPool.KEPT, pool.allocated());
            assertFalse(used.getFirst().arena().scope().isAlive(), "the oldest free buffer beyond the kept ones is freed");
            assertTrue(used.getLast().arena().scope().isAlive());
        }
    }

    @Test
    void closeFreesEveryBufferAndRefusesMore() {
        StagingPool pool = new StagingPool();
        StagingPool.Staging inUse = pool.acquire(8), free = pool.acquire(16);
        pool.release(free);
        pool.close();
        assertFalse(inUse.arena().scope().isAlive());
        assertFalse(free.arena().scope().isAlive());
        pool.release(inUse);
        pool.close();
        assertTrue(assertThrows(IllegalStateException.class, () -> pool.acquire(8)).getMessage().contains("closed"));
    }
}
