package dev.symbiont.core.reference;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.Storage;
import org.junit.jupiter.api.Test;

import static dev.symbiont.core.reference.Fixtures.assertFloats;
import static dev.symbiont.core.reference.Fixtures.f32;
import static dev.symbiont.core.reference.Fixtures.floats;
import static dev.symbiont.core.reference.Fixtures.longs;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ReferenceReductionsTest {
    private static final float NAN = Float.NaN;
    private final ReferenceBackend backend = new ReferenceBackend();

    /** x = arange(24).reshape(2,3,4).permute(2,0,1): shape (4,2,3), x[i,j,k] = 12j + 4k + i. */
    private final Storage base = f32(backend, arange(24));
    private final Layout permuted = Layout.contiguous(2, 3, 4).permute(2, 0, 1);

    private static float[] arange(int n) {
        float[] a = new float[n];
        for (int i = 0; i < n; i++) a[i] = i;
        return a;
    }

    private float[] reduce(ReduceOp op, int[] outShape, int... dims) {
        return floats(backend, backend.reduce(op, base, permuted, dims), outShape);
    }

    @Test
    void should_sum_a_permuted_layout_over_several_dim_sets() {
        // sum_i (12j + 4k + i) = 48j + 16k + 6
        assertFloats(new float[] {6, 22, 38, 54, 70, 86}, reduce(ReduceOp.SUM, new int[] {1, 2, 3}, 0), 0);
        // sum_{j,k} (12j + 4k + i) = 6i + 60
        assertFloats(new float[] {60, 66, 72, 78}, reduce(ReduceOp.SUM, new int[] {4, 1, 1}, 1, 2), 0);
        // sum_{i,k} (12j + 4k + i) = 144j + 66
        assertFloats(new float[] {66, 210}, reduce(ReduceOp.SUM, new int[] {1, 2, 1}, 0, 2), 0);
        assertFloats(new float[] {276}, reduce(ReduceOp.SUM, new int[] {1, 1, 1}, 0, 1, 2), 0);
        // no dims: a contiguous copy in the permuted order
        float[] all = reduce(ReduceOp.SUM, new int[] {4, 2, 3});
        assertEquals(12 + 8 + 3, all[3 * 6 + 1 * 3 + 2], 0); // x[3,1,2]
    }

    @Test
    void should_take_max_and_min_of_a_permuted_layout() {
        // max_j (12j + 4k + i) = 12 + 4k + i, laid out (4,1,3)
        assertFloats(new float[] {12, 16, 20, 13, 17, 21, 14, 18, 22, 15, 19, 23},
                reduce(ReduceOp.MAX, new int[] {4, 1, 3}, 1), 0);
        // min_{i,k} = 12j
        assertFloats(new float[] {0, 12}, reduce(ReduceOp.MIN, new int[] {1, 2, 1}, 0, 2), 0);
    }

    @Test
    void should_propagate_nan_through_max_and_min() {
        Storage x = f32(backend, 1, NAN, 3, 4, 5, 6);
        Layout l = Layout.contiguous(2, 3);
        assertFloats(new float[] {NAN, 6}, floats(backend, backend.reduce(ReduceOp.MAX, x, l, new int[] {1}), 2, 1), 0);
        assertFloats(new float[] {NAN, 4}, floats(backend, backend.reduce(ReduceOp.MIN, x, l, new int[] {1}), 2, 1), 0);
    }

    @Test
    void should_accumulate_sums_in_double() {
        // 1e8 + 1 + 1 + ... in float would stay at 1e8; the exact sum is 1e8 + 16
        float[] v = new float[17];
        v[0] = 1e8f;
        for (int i = 1; i < v.length; i++) v[i] = 1;
        Storage s = backend.reduce(ReduceOp.SUM, f32(backend, v), Layout.contiguous(17), new int[] {0});
        assertEquals(100000016f, floats(backend, s, 1)[0], 0);
    }

    @Test
    void should_sum_empty_sets_to_zero_and_refuse_empty_max() {
        Storage empty = backend.allocate(DType.FLOAT32, 0);
        Layout l = Layout.contiguous(2, 0);
        assertFloats(new float[] {0, 0}, floats(backend, backend.reduce(ReduceOp.SUM, empty, l, new int[] {1}), 2, 1), 0);
        var e = assertThrows(IllegalArgumentException.class, () -> backend.reduce(ReduceOp.MAX, empty, l, new int[] {1}));
        assertTrue(e.getMessage().contains("MAX") && e.getMessage().contains("[2, 0]"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> backend.reduce(ReduceOp.ARGMIN, empty, l, new int[] {1}));
    }

    @Test
    void should_pick_first_occurrence_for_argmax_and_argmin() {
        Storage x = f32(backend, 1, 3, 3, 2, 5, 1, 1, 5);
        Layout l = Layout.contiguous(2, 4);
        Storage am = backend.reduce(ReduceOp.ARGMAX, x, l, new int[] {1});
        assertEquals(DType.INT64, am.dtype());
        assertArrayEquals(new long[] {1, 0}, longs(backend, am, 2, 1));
        assertArrayEquals(new long[] {0, 1}, longs(backend, backend.reduce(ReduceOp.ARGMIN, x, l, new int[] {1}), 2, 1));
        // along dim 0: columns (1,5) (3,1) (3,1) (2,5)
        assertArrayEquals(new long[] {1, 0, 0, 1}, longs(backend, backend.reduce(ReduceOp.ARGMAX, x, l, new int[] {0}), 1, 4));
    }

    @Test
    void should_treat_nan_as_the_extreme_in_argmax_and_argmin() {
        Storage x = f32(backend, 1, NAN, 5, NAN);
        Layout l = Layout.contiguous(4);
        assertArrayEquals(new long[] {1}, longs(backend, backend.reduce(ReduceOp.ARGMAX, x, l, new int[] {0}), 1));
        assertArrayEquals(new long[] {1}, longs(backend, backend.reduce(ReduceOp.ARGMIN, x, l, new int[] {0}), 1));
    }

    @Test
    void should_argmax_a_permuted_layout() {
        // argmax over i of 12j + 4k + i is always i = 3
        Storage s = backend.reduce(ReduceOp.ARGMAX, base, permuted, new int[] {0});
        assertArrayEquals(new long[] {3, 3, 3, 3, 3, 3}, longs(backend, s, 1, 2, 3));
    }

    @Test
    void should_cumsum_along_a_dim_of_a_transposed_layout() {
        // storage (2,3) [[1,2,3],[4,5,6]] viewed transposed (3,2): [[1,4],[2,5],[3,6]]
        Storage x = f32(backend, 1, 2, 3, 4, 5, 6);
        Layout t = Layout.contiguous(2, 3).transpose(0, 1);
        assertFloats(new float[] {1, 4, 3, 9, 6, 15}, floats(backend, backend.cumsum(x, t, 0), 3, 2), 0);
        assertFloats(new float[] {1, 5, 2, 7, 3, 9}, floats(backend, backend.cumsum(x, t, 1), 3, 2), 0);
    }

    @Test
    void should_return_topk_sorted_with_stable_ties() {
        Storage x = f32(backend, 3, 1, 4, 1, 5, 9, 2, 6);
        Layout l = Layout.contiguous(8);
        Backend.TopK top = backend.topk(x, l, 0, 3, true);
        assertFloats(new float[] {9, 6, 5}, floats(backend, top.values(), 3), 0);
        assertArrayEquals(new long[] {5, 7, 4}, longs(backend, top.indices(), 3));
        assertEquals(DType.INT64, top.indices().dtype());
        Backend.TopK bottom = backend.topk(x, l, 0, 3, false);
        assertFloats(new float[] {1, 1, 2}, floats(backend, bottom.values(), 3), 0);
        assertArrayEquals(new long[] {1, 3, 6}, longs(backend, bottom.indices(), 3));
    }

    @Test
    void should_topk_along_the_first_dim_of_a_transposed_layout() {
        // storage (2,4) [[3,1,4,1],[5,9,2,6]] viewed transposed (4,2): columns (3,1,4,1) and (5,9,2,6)
        Storage x = f32(backend, 3, 1, 4, 1, 5, 9, 2, 6);
        Layout t = Layout.contiguous(2, 4).transpose(0, 1);
        Backend.TopK top = backend.topk(x, t, 0, 2, true);
        assertFloats(new float[] {4, 9, 3, 6}, floats(backend, top.values(), 2, 2), 0);
        assertArrayEquals(new long[] {2, 1, 0, 3}, longs(backend, top.indices(), 2, 2));
    }

    @Test
    void should_rank_nan_above_everything_in_topk() {
        Storage x = f32(backend, 2, NAN, 7);
        Backend.TopK top = backend.topk(x, Layout.contiguous(3), 0, 2, true);
        assertArrayEquals(new long[] {1, 2}, longs(backend, top.indices(), 2));
        Backend.TopK bottom = backend.topk(x, Layout.contiguous(3), 0, 3, false);
        assertArrayEquals(new long[] {0, 2, 1}, longs(backend, bottom.indices(), 3));
    }
}
