package dev.symbiont.core;

import dev.symbiont.core.backend.Backends;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.symbiont.core.ReferenceTensors.t;
import static dev.symbiont.core.ReferenceTensors.seq;
import static dev.symbiont.core.ReferenceTensors.REF;
import static org.junit.jupiter.api.Assertions.*;

/** Views and layouts at the edges: empty and size-1 dims, stride-0 views, slices past the ends, negative indices and dims, offsets, extents past 2^31. */
class ViewEdgeCasesTest {
    @Test
    void emptyLayoutsAreContiguous() {
        assertTrue(Layout.contiguous(2, 0).isContiguous());
        assertTrue(Layout.contiguous(0, 3).isContiguous());
        assertTrue(Layout.contiguous(2, 0, 3).isContiguous());
    }

    @Test
    void slicesWithOutOfRangeAndNegativeBoundsClampLikePython() {
        Tensor x = t(seq(6), 6).requiresGrad(true);
        assertArrayEquals(new float[] {5, 6}, x.slice(0, -2, 100, 1).toFloatArray());
        assertArrayEquals(new float[] {1, 3, 5}, x.slice(0, -100, 100, 2).toFloatArray());
        assertEquals(0, x.slice(0, 4, 2, 1).numel());
        assertEquals(0, x.slice(0, 7, 9, 1).numel());
        Tensor s = x.slice(0, -5, -1, 3);
        assertArrayEquals(new float[] {2, 5}, s.toFloatArray());
        s.mul(t(new float[] {10, 20}, 2)).sum().backward();
        assertArrayEquals(new float[] {0, 10, 0, 0, 20, 0}, x.grad().toFloatArray());
        x.zeroGrad();
        x.slice(0, 7, 9, 1).sum().backward();
        assertArrayEquals(new float[6], x.grad().toFloatArray());
    }

    @Test
    void sliceOfASliceOfATransposeReadsTheRightElements() {
        Tensor x = t(seq(12), 3, 4).t();                  // (4, 3)
        Tensor s = x.slice(0, 1, 4, 2).slice(1, 1, 3, 1); // rows 1,3; cols 1,2
        assertArrayEquals(new float[] {6, 10, 8, 12}, s.toFloatArray());
        assertArrayEquals(new float[] {6, 10, 8, 12}, s.reshape(4).toFloatArray());
    }

    @Test
    void reshapeOfStrideZeroViewsCopiesOrViewsCorrectly() {
        Tensor row = t(new float[] {1, 2, 3}, 3);
        Tensor e = row.expand(2, 3);
        assertArrayEquals(new float[] {1, 2, 3, 1, 2, 3}, e.reshape(6).toFloatArray());
        assertThrows(IllegalArgumentException.class, () -> e.view(6));
        Tensor col = t(new float[] {1, 2}, 2, 1).expand(2, 3);
        assertArrayEquals(new float[] {1, 1, 1, 2, 2, 2}, col.reshape(-1).toFloatArray());
        assertArrayEquals(new float[] {1, 1, 1, 2, 2, 2}, col.reshape(3, 2).toFloatArray());
        Tensor sc;
        try (var sc0 = Backends.use(REF)) { sc = t(new float[] {7}).expand(2, 3); }
        assertArrayEquals(new float[] {7, 7, 7, 7, 7, 7}, sc.reshape(3, 2).toFloatArray());
        assertArrayEquals(new float[] {7, 7, 7, 7, 7, 7}, sc.view(6).toFloatArray());
        assertArrayEquals(new float[] {1, 2, 3, 1, 2, 3}, row.unsqueeze(0).expand(2, 1, 3).reshape(2, 3).toFloatArray());
    }

    @Test
    void unsqueezeAndExpandOfEmptyAndSizeOneDims() {
        Tensor x = t(new float[0], 2, 0);
        assertArrayEquals(new int[] {2, 1, 0}, x.unsqueeze(1).shape());
        assertArrayEquals(new int[] {2, 0, 1}, x.unsqueeze(-1).shape());
        Tensor one = t(new float[] {5, 6}, 2, 1);
        assertArrayEquals(new int[] {2, 0}, one.expand(2, 0).shape());
        assertEquals(0, one.expand(3, 2, 0).sum(new int[] {2}, false).sum().item());
        Tensor y = t(new float[] {1, 2}, 2, 1).requiresGrad(true);
        y.expand(2, 0).sum().backward();
        assertArrayEquals(new float[] {0, 0}, y.grad().toFloatArray());
    }

    @Test
    void catAndStackWithNegativeDimsAndEmptyPieces() {
        Tensor a = t(seq(4), 2, 2).requiresGrad(true), e = t(new float[0], 2, 0).requiresGrad(true);
        Tensor c = Tensor.cat(List.of(a, e, a), -1);
        assertArrayEquals(new float[] {1, 2, 1, 2, 3, 4, 3, 4}, c.toFloatArray());
        c.mul(t(seq(8), 2, 4)).sum().backward();
        assertArrayEquals(new float[] {1 + 3, 2 + 4, 5 + 7, 6 + 8}, a.grad().toFloatArray());
        Tensor s = Tensor.stack(List.of(a.detach(), a.detach()), -1);
        assertArrayEquals(new int[] {2, 2, 2}, s.shape());
        assertArrayEquals(new float[] {1, 1, 2, 2, 3, 3, 4, 4}, s.toFloatArray());
    }

    @Test
    void selectWithNegativeIndexAndItsGradient() {
        Tensor x = t(seq(6), 2, 3).requiresGrad(true);
        Tensor s = x.select(-1, -1);
        assertArrayEquals(new float[] {3, 6}, s.toFloatArray());
        s.sum().backward();
        assertArrayEquals(new float[] {0, 0, 1, 0, 0, 1}, x.grad().toFloatArray());
        assertThrows(IndexOutOfBoundsException.class, () -> x.select(1, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> x.select(1, -4));
    }

    @Test
    void cumsumAndIndexSelectOnViewsWithOffsets() {
        Tensor x = t(seq(12), 3, 4).t().narrow(0, 1, 2); // (2, 3) rows: cols 1 and 2 of original
        assertArrayEquals(new float[] {2, 8, 18, 3, 10, 21}, x.cumsum(1).toFloatArray());
        Tensor idx;
        try (var s = Backends.use(REF)) { idx = Tensor.fromArray(new long[] {2, 0, 2}, 3); }
        assertArrayEquals(new float[] {10, 2, 10, 11, 3, 11}, x.indexSelect(1, idx).toFloatArray());
    }

    @Test
    void narrowWithAStartThatOverflowsIsRejected() {
        Tensor x = t(seq(6), 2, 3);
        assertThrows(IllegalArgumentException.class, () -> x.narrow(1, Integer.MAX_VALUE, 1));
        assertThrows(IllegalArgumentException.class, () -> x.narrow(1, 2, Integer.MAX_VALUE));
    }

    @Test
    void layoutWhoseExtentPassesTwoToTheThirtyOneIsRejectedNotWrapped() {
        Layout huge = new Layout(new int[] {4, 2}, new int[] {Integer.MAX_VALUE / 2, 1}, 0);
        var e = assertThrows(IllegalArgumentException.class, huge::maxIndex);
        assertTrue(e.getMessage().contains("past 2^31 - 1"), e.getMessage());
    }
}
