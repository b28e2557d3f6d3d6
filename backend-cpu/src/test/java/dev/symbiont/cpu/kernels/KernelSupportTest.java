package dev.symbiont.cpu.kernels;

import dev.symbiont.core.Layout;
import org.junit.jupiter.api.Test;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The plumbing around the kernels: availability, layout patterns, work splitting. */
class KernelSupportTest {

    @Test
    void saysWhyWhenTheModuleIsMissingOrTurnedOff() {
        var missing = KernelSupport.check(null, ModuleLayer.empty(), KernelSupport.MODULE, KernelSupport.CONSTANTS_CLASS);
        assertFalse(missing.available());
        assertTrue(missing.reason().contains("--add-modules jdk.incubator.vector"), missing.reason());
        var off = KernelSupport.check("false", ModuleLayer.boot(), KernelSupport.MODULE, KernelSupport.CONSTANTS_CLASS);
        assertFalse(off.available());
        assertTrue(off.reason().contains(KernelSupport.PROPERTY), off.reason());
        var broken = KernelSupport.check(null, ModuleLayer.boot(), KernelSupport.MODULE, "dev.symbiont.cpu.kernels.Nope");
        assertFalse(broken.available());
        var ok = KernelSupport.check(null, ModuleLayer.boot(), KernelSupport.MODULE, KernelSupport.CONSTANTS_CLASS);
        assertTrue(ok.available(), ok.reason());
    }

    @Test
    void classifiesBroadcastLayouts() {
        assertEquals(new Broadcast(Broadcast.Kind.ROWS, 2, 12), Broadcast.of(new Layout(new int[] {3, 4}, new int[] {4, 1}, 2)));
        assertEquals(new Broadcast(Broadcast.Kind.ROWS, 0, 4), Broadcast.of(new Layout(new int[] {3, 4}, new int[] {0, 1}, 0)));
        assertEquals(new Broadcast(Broadcast.Kind.ROWS, 0, 20), Broadcast.of(new Layout(new int[] {3, 4, 5}, new int[] {0, 5, 1}, 0)));
        assertEquals(new Broadcast(Broadcast.Kind.COLUMNS, 1, 4), Broadcast.of(new Layout(new int[] {3, 4}, new int[] {1, 0}, 1)));
        assertEquals(new Broadcast(Broadcast.Kind.COLUMNS, 0, 12), Broadcast.of(new Layout(new int[] {3, 4}, new int[] {0, 0}, 0)));
        assertEquals(new Broadcast(Broadcast.Kind.COLUMNS, 0, 20), Broadcast.of(new Layout(new int[] {2, 3, 4, 5}, new int[] {3, 1, 0, 0}, 0)));
        assertNull(Broadcast.of(new Layout(new int[] {3, 4}, new int[] {1, 3}, 0)));        // transposed
        assertNull(Broadcast.of(new Layout(new int[] {3, 4, 5}, new int[] {5, 0, 1}, 0)));  // broadcast in the middle
        assertNull(Broadcast.of(Layout.contiguous(0, 4)));
    }

    @Test
    void splitsWorkOnlyAboveTheGrainAndCoversEveryItemOnce() {
        assertEquals(1, Parallel.chunks(100, 1000));
        int n = 100_003;
        AtomicIntegerArray seen = new AtomicIntegerArray(n);
        var threads = ConcurrentHashMap.<String>newKeySet();
        Parallel.forChunks(n, 1000, (chunk, from, to) -> {
            threads.add(Thread.currentThread().getName());
            for (int i = from; i < to; i++) seen.incrementAndGet(i);
        });
        for (int i = 0; i < n; i++) assertEquals(1, seen.get(i), "item " + i);
        Parallel.forRange(0, 10, (from, to) -> { throw new AssertionError("no work for n = 0"); });
    }
}
