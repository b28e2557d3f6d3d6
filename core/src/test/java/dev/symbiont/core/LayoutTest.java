package dev.symbiont.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Layout arithmetic: strides of views, and when a reshape can be a view. */
class LayoutTest {

    /** Every element of the reshaped view must address the same storage index as the original in row-major order. */
    private static void assertSameElements(Layout original, Layout view) {
        assertEquals(original.numel(), view.numel());
        for (int i = 0; i < original.numel(); i++) assertEquals(original.offsetOf(i), view.offsetOf(i), "element " + i);
    }

    @Test
    void contiguousLayoutsHaveRowMajorStrides() {
        Layout l = Layout.contiguous(2, 3, 4);
        assertArrayEquals(new int[] {12, 4, 1}, l.strides());
        assertTrue(l.isContiguous());
        assertEquals(24, l.numel());
        assertEquals(23, l.maxIndex());
        assertEquals(0, Layout.contiguous(3, 0).numel());
        assertEquals(1, Layout.contiguous().numel());
    }

    @Test
    void permuteTransposeNarrowSelectAndUnsqueezeMoveStridesNotData() {
        Layout l = Layout.contiguous(2, 3, 4);
        Layout p = l.permute(2, 0, 1);
        assertArrayEquals(new int[] {4, 2, 3}, p.shape());
        assertArrayEquals(new int[] {1, 12, 4}, p.strides());
        assertFalse(p.isContiguous());
        Layout n = l.narrow(1, 1, 2);
        assertEquals(4, n.offset());
        assertArrayEquals(new int[] {2, 2, 4}, n.shape());
        Layout s = l.select(2, -1);
        assertEquals(3, s.offset());
        assertArrayEquals(new int[] {12, 4}, s.strides());
        Layout u = l.unsqueeze(1);
        assertArrayEquals(new int[] {2, 1, 3, 4}, u.shape());
        assertTrue(u.isContiguous());
        assertArrayEquals(new int[] {2, 3, 4}, u.squeeze(1).shape());
        assertArrayEquals(new int[] {3}, Layout.contiguous(1, 3, 1).squeeze().shape());
    }

    @Test
    void expandUsesStrideZeroAndRejectsNonSingletonDims() {
        Layout e = Layout.contiguous(3, 1).expand(2, 3, 5);
        assertArrayEquals(new int[] {0, 1, 0}, e.strides());
        assertEquals(2, e.maxIndex());
        assertArrayEquals(new int[] {3, 1}, Layout.contiguous(3, 1).expand(-1, 1).shape());
        assertThrows(IllegalArgumentException.class, () -> Layout.contiguous(3, 2).expand(3, 4));
        assertThrows(IllegalArgumentException.class, () -> Layout.contiguous(3).expand());
    }

    @Test
    void offsetOfWalksStridesInRowMajorOrder() {
        Layout t = Layout.contiguous(2, 3).transpose(0, 1); // (3, 2) strides (1, 3)
        int[] expected = {0, 3, 1, 4, 2, 5};
        for (int i = 0; i < 6; i++) assertEquals(expected[i], t.offsetOf(i));
    }

    @Test
    void reshapeOfAContiguousLayoutIsAlwaysAView() {
        Layout l = new Layout(new int[] {2, 6}, new int[] {6, 1}, 5);
        Layout v = l.reshapeView(new int[] {3, 4});
        assertNotNull(v);
        assertEquals(5, v.offset());
        assertArrayEquals(new int[] {4, 1}, v.strides());
    }

    @Test
    void reshapeSplittingADimOfANonContiguousLayoutIsAView() {
        Layout narrowed = Layout.contiguous(4, 6).narrow(1, 1, 3); // (4, 3) strides (6, 1), offset 1
        Layout v = narrowed.reshapeView(new int[] {2, 2, 3});
        assertNotNull(v);
        assertArrayEquals(new int[] {12, 6, 1}, v.strides());
        assertSameElements(narrowed, v);
    }

    @Test
    void reshapeMergingDimsThatAreContiguousAmongThemselvesIsAView() {
        // (4, 3, 5) with dim 2 narrowed to 2: dims 0 and 1 stay mergeable.
        Layout l = Layout.contiguous(4, 3, 5).narrow(2, 0, 2); // strides (15, 5, 1)
        Layout v = l.reshapeView(new int[] {12, 2});
        assertNotNull(v);
        assertArrayEquals(new int[] {5, 1}, v.strides());
        assertSameElements(l, v);
        // Permuted: (3, 2, 4) strides (4, 12, 1): splitting the last dim works.
        Layout p = Layout.contiguous(2, 3, 4).permute(1, 0, 2);
        Layout ps = p.reshapeView(new int[] {3, 2, 2, 2});
        assertNotNull(ps);
        assertSameElements(p, ps);
        // Expanded: (3, 4) strides (0, 1) can split the last dim.
        Layout e = Layout.contiguous(1, 4).expand(3, 4);
        Layout es = e.reshapeView(new int[] {3, 2, 2});
        assertNotNull(es);
        assertArrayEquals(new int[] {0, 2, 1}, es.strides());
    }

    @Test
    void reshapeMergingDimsThatAreNotContiguousAmongThemselvesIsNotAView() {
        assertNull(Layout.contiguous(2, 3).transpose(0, 1).reshapeView(new int[] {6}));
        assertNull(Layout.contiguous(4, 6).narrow(1, 1, 3).reshapeView(new int[] {12}));
        assertNull(Layout.contiguous(2, 3, 4).permute(1, 0, 2).reshapeView(new int[] {3, 8}));
        assertNull(Layout.contiguous(1, 4).expand(3, 4).reshapeView(new int[] {12}));
        assertNull(new Layout(new int[] {2, 3}, new int[] {7, 2}, 0).reshapeView(new int[] {6})); // every other column of (2, 7)
        // Every other column of (2, 6) is evenly spaced throughout, so it does merge.
        assertArrayEquals(new int[] {2}, new Layout(new int[] {2, 3}, new int[] {6, 2}, 0).reshapeView(new int[] {6}).strides());
    }

    @Test
    void reshapeAddingAndRemovingSizeOneDimsOfATransposedLayoutIsAView() {
        Layout t = Layout.contiguous(2, 3).transpose(0, 1); // (3, 2) strides (1, 3)
        Layout v = t.reshapeView(new int[] {3, 1, 2, 1});
        assertNotNull(v);
        assertSameElements(t, v);
        Layout back = v.reshapeView(new int[] {3, 2});
        assertNotNull(back);
        assertSameElements(t, back);
    }

    @Test
    void reshapeOfEmptyAndScalarLayoutsIsAView() {
        assertNotNull(Layout.contiguous(2, 0).transpose(0, 1).reshapeView(new int[] {0, 5}));
        assertArrayEquals(new int[] {1, 1}, new Layout(new int[] {}, new int[] {}, 3).reshapeView(new int[] {1, 1}).shape());
    }

    @Test
    void invalidLayoutsAndDimsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new Layout(new int[] {2}, new int[] {1, 1}, 0));
        assertThrows(IllegalArgumentException.class, () -> new Layout(new int[] {-1}, new int[] {1}, 0));
        assertThrows(IllegalArgumentException.class, () -> Layout.contiguous(2).dim("op", 1));
        assertEquals(1, Layout.contiguous(2, 3).dim("op", -1));
    }
}
