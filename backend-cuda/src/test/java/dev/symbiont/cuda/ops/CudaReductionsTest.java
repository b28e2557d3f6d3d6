package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.ReduceOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** reduce and cumsum on the PTX interpreter against the reference backend, bit for bit. */
class CudaReductionsTest {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
    private final Backend reference = new ReferenceBackend();

    /** Values with ties (few distinct values), NaN, and both zeros. */
    private static float[] values(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = r.nextInt(7) - 3 + (r.nextBoolean() ? 0.25f : 0f);
        if (n > 5) { v[3] = -0f; v[4] = 0f; }
        return v;
    }

    private static Storage input(Backend backend, float[] x) { return backend.upload(DType.FLOAT32, x); }

    private static List<int[]> dimSets(int rank) {
        List<int[]> sets = new ArrayList<>();
        for (int mask = 1; mask < (1 << rank); mask++) {
            int[] dims = new int[Integer.bitCount(mask)];
            for (int d = 0, i = 0; d < rank; d++) if ((mask & (1 << d)) != 0) dims[i++] = d;
            sets.add(dims);
        }
        return sets;
    }

    private void compare(ReduceOp op, float[] x, Layout layout, int[] dims) {
        Layout out = reducedLayout(layout, dims);
        Object expected = reference.download(reference.reduce(op, input(reference, x), layout, dims), out);
        Object actual = cuda.download(cuda.reduce(op, input(cuda, x), layout, dims), out);
        String what = op + " over " + java.util.Arrays.toString(dims) + " of " + layout;
        if (op.isArg()) assertArrayEquals((long[]) expected, (long[]) actual, what);
        else assertArrayEquals((float[]) expected, (float[]) actual, what);
    }

    /** The result's layout: x's shape with the reduced dims of size 1. */
    private static Layout reducedLayout(Layout layout, int[] dims) {
        int[] shape = layout.shape().clone();
        for (int d : dims) shape[d] = 1;
        return Layout.contiguous(shape);
    }

    @ParameterizedTest
    @EnumSource(value = ReduceOp.class, names = {"SUM", "MAX", "MIN"})
    void valueReductionsOverEveryDimSetMatchTheReference(ReduceOp op) {
        float[] x = values(7 * 33 * 3, op.ordinal());
        Layout layout = Layout.contiguous(7, 33, 3);
        for (int[] dims : dimSets(3)) compare(op, x, layout, dims);
        // a transposed view and a broadcast (stride-0) one
        for (int[] dims : dimSets(2)) compare(op, x, Layout.contiguous(33, 7).transpose(0, 1), dims);
        for (int[] dims : dimSets(2)) compare(op, x, Layout.contiguous(1, 65).expand(3, 65), dims);
    }

    @ParameterizedTest
    @EnumSource(value = ReduceOp.class, names = {"ARGMAX", "ARGMIN"})
    void argReductionsTieToTheLowerIndexLikeTheReference(ReduceOp op) {
        float[] x = values(5 * 65, 9);
        for (int dim = 0; dim < 2; dim++) {
            compare(op, x, Layout.contiguous(5, 65), new int[]{dim});
            compare(op, x, Layout.contiguous(65, 5).transpose(0, 1), new int[]{dim});
        }
    }

    @Test
    void nanPropagatesThroughMaxAndIsTheArgExtreme() {
        float[] x = values(2 * 33, 4);
        x[40] = Float.NaN;
        Layout layout = Layout.contiguous(2, 33);
        for (ReduceOp op : ReduceOp.values()) compare(op, x, layout, new int[]{1});
    }

    @Test
    void cumsumAlongEveryDimMatchesTheReference() {
        float[] x = values(7 * 130, 3);
        for (Layout layout : List.of(Layout.contiguous(7, 130), Layout.contiguous(130, 7).transpose(0, 1))) {
            for (int dim = 0; dim < 2; dim++) {
                Layout out = Layout.contiguous(7, 130);
                assertArrayEquals((float[]) reference.download(reference.cumsum(input(reference, x), layout, dim), out),
                        (float[]) cuda.download(cuda.cumsum(input(cuda, x), layout, dim), out), "cumsum along " + dim + " of " + layout);
            }
        }
    }

    @Test
    void anEmptyMaxAndUnsortedDimsAreRejectedAsTheReferenceRejectsThem() {
        Layout empty = Layout.contiguous(3, 0);
        Storage none = cuda.upload(DType.FLOAT32, new float[0]);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cuda.reduce(ReduceOp.MAX, none, empty, new int[]{1}));
        IllegalArgumentException r = assertThrows(IllegalArgumentException.class,
                () -> reference.reduce(ReduceOp.MAX, reference.upload(DType.FLOAT32, new float[0]), empty, new int[]{1}));
        assertEquals(r.getMessage(), e.getMessage());
        Layout l = Layout.contiguous(2, 2);
        IllegalArgumentException u = assertThrows(IllegalArgumentException.class,
                () -> cuda.reduce(ReduceOp.SUM, cuda.upload(DType.FLOAT32, new float[4]), l, new int[]{1, 0}));
        assertEquals("SUM: dims [1, 0] must be sorted, distinct and within rank 2 of shape [2, 2]", u.getMessage());
    }

    @Test
    void topkMatchesTheReferenceWithTiesAndNan() {
        float[] x = values(7 * 33, 5);
        x[10] = Float.NaN;
        for (Layout layout : List.of(Layout.contiguous(7, 33), Layout.contiguous(33, 7).transpose(0, 1))) {
            for (int dim = 0; dim < 2; dim++) {
                for (int k : new int[]{0, 1, 5, layout.size(dim)}) {
                    for (boolean largest : new boolean[]{true, false}) {
                        int[] shape = layout.shape().clone();
                        shape[dim] = k;
                        Layout out = Layout.contiguous(shape);
                        Backend.TopK expected = reference.topk(input(reference, x), layout, dim, k, largest);
                        Backend.TopK actual = cuda.topk(input(cuda, x), layout, dim, k, largest);
                        String what = "topk k=" + k + " largest=" + largest + " along " + dim + " of " + layout;
                        assertArrayEquals((float[]) reference.download(expected.values(), out), (float[]) cuda.download(actual.values(), out), what);
                        assertArrayEquals((long[]) reference.download(expected.indices(), out), (long[]) cuda.download(actual.indices(), out), what);
                    }
                }
            }
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> cuda.topk(input(cuda, x), Layout.contiguous(7, 33), 1, 34, true));
        assertEquals("topk: k 34 out of range for dim 1 of size 33 in shape [7, 33]", e.getMessage());
    }
}
