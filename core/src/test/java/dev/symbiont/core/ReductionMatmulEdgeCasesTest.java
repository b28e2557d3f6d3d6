package dev.symbiont.core;

import org.junit.jupiter.api.Test;

import static dev.symbiont.core.ReferenceTensors.t;
import static dev.symbiont.core.ReferenceTensors.seq;
import static org.junit.jupiter.api.Assertions.*;

/** Reductions and matmul at the edges: negative dims, keepdim, empty tensors, one-dimensional and broadcast operands against hand-computed values. */
class ReductionMatmulEdgeCasesTest {
    @Test
    void reductionsWithNegativeDimsKeepdimAndEmptyTensors() {
        Tensor x = t(seq(24), 2, 3, 4);
        Tensor a = x.sum(new int[] {-1, 0}, false);
        assertArrayEquals(new int[] {3}, a.shape());
        assertArrayEquals(new float[] {1 + 2 + 3 + 4 + 13 + 14 + 15 + 16, 5 + 6 + 7 + 8 + 17 + 18 + 19 + 20,
                9 + 10 + 11 + 12 + 21 + 22 + 23 + 24}, a.toFloatArray());
        assertArrayEquals(new int[] {1, 3, 1}, x.amax(new int[] {-1, -3}, true).shape());
        Tensor empty = t(new float[0], 0, 3);
        assertArrayEquals(new float[] {0, 0, 0}, empty.sum(0, false).toFloatArray());
        assertArrayEquals(new int[] {0}, empty.sum(1, false).shape());
        assertTrue(Float.isNaN(empty.mean().item()));
        assertThrows(IllegalArgumentException.class, () -> empty.max(0, false));
        assertThrows(IllegalArgumentException.class, () -> x.sum(new int[] {1, -2}, false));
        assertThrows(IllegalArgumentException.class, () -> x.sum(3, false));
    }

    @Test
    void matmulOneDimensionalAndBroadcastCasesMatchHandComputedValues() {
        Tensor v = t(new float[] {1, 2}, 2);
        Tensor m = t(seq(6), 2, 3);
        assertArrayEquals(new float[] {9, 12, 15}, v.matmul(m).toFloatArray());
        Tensor b = t(seq(12), 2, 2, 3);
        Tensor vb = v.matmul(b);
        assertArrayEquals(new int[] {2, 3}, vb.shape());
        assertArrayEquals(new float[] {9, 12, 15, 27, 30, 33}, vb.toFloatArray());
        Tensor w = t(new float[] {1, 0, -1}, 3);
        Tensor bw = b.matmul(w);
        assertArrayEquals(new int[] {2, 2}, bw.shape());
        assertArrayEquals(new float[] {-2, -2, -2, -2}, bw.toFloatArray());
        Tensor k0 = t(new float[0], 2, 0).matmul(t(new float[0], 0, 3));
        assertArrayEquals(new float[6], k0.toFloatArray());
        Tensor dot0 = t(new float[0], 0).matmul(t(new float[0], 0));
        assertEquals(0, dot0.dim());
        assertEquals(0f, dot0.item());
    }
}
