package dev.symbiont.core.offheap;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.heap.HeapMemory;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the off-heap test backend adds to the kit: its memory accounting, its releases, and moving tensors to and from it. */
class OffHeapBackendTest {

    @Test
    void itIsNotAHeapBackendAndCountsItsNativeBytesUntilRelease() {
        OffHeapBackend be = new OffHeapBackend();
        assertFalse((Object) be instanceof HeapMemory);
        Storage s = be.allocate(DType.FLOAT32, 10_000);
        assertEquals(40_000, be.memory().allocatedBytes());
        assertEquals(40_000, be.memory().peakBytes());
        s.release();
        s.release(); // idempotent
        assertEquals(0, be.memory().allocatedBytes());
        assertEquals(40_000, be.memory().peakBytes());
    }

    @Test
    void aReleasedStorageIsAnErrorNamingTheOp() {
        OffHeapBackend be = new OffHeapBackend();
        try (var use = Backends.use(be)) {
            Tensor x = Tensor.randn(new Generator(1), 3, 4);
            x.storage().release();
            var e = assertThrows(IllegalStateException.class, () -> x.exp());
            assertTrue(e.getMessage().startsWith("unary EXP: storage used after release()"), e.getMessage());
        }
    }

    @Test
    void aStorageOfAnotherBackendIsAnErrorNamingTheOp() {
        OffHeapBackend be = new OffHeapBackend();
        Storage heap = new ReferenceBackend().allocate(DType.FLOAT32, 4);
        var e = assertThrows(IllegalArgumentException.class,
                () -> be.unary(dev.symbiont.core.backend.UnaryOp.EXP, heap, dev.symbiont.core.Layout.contiguous(4)));
        assertTrue(e.getMessage().contains("unary EXP") && e.getMessage().contains("reference"), e.getMessage());
    }

    @Test
    void aViewMovesBetweenTheHeapAndNativeMemoryAndItsGradientComesBack() {
        ReferenceBackend heap = new ReferenceBackend();
        OffHeapBackend native_ = new OffHeapBackend();
        try (var use = Backends.use(heap)) {
            Tensor x = Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3).requiresGrad(true);
            Tensor moved = x.t().to(native_);
            assertSame(native_, moved.backend());
            assertArrayEquals(new int[] {3, 2}, moved.shape());
            assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, moved.toFloatArray());
            Tensor back = moved.mul(moved).to(heap);
            back.sum().backward();
            assertArrayEquals(new float[] {2, 4, 6, 8, 10, 12}, x.grad().toFloatArray());
            Tensor bits = Tensor.fromArray(new float[] {1.5f, -2}, 2).to(DType.BFLOAT16).to(native_).to(heap);
            assertEquals(DType.BFLOAT16, bits.dtype());
            assertArrayEquals(new float[] {1.5f, -2}, bits.toFloatArray());
        }
    }
}
