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

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The reduction, cumsum and top-k kernels on the PTX interpreter against the reference backend. */
class CudaReductionsTest {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
    private final Backend reference = new ReferenceBackend();

    /** Values with repeats (ties), a NaN-free default and both zeros. */
    private static float[] values(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = r.nextInt(9) - 4 + (r.nextBoolean() ? 0.5f : 0f);
        if (n > 3) { v[1] = -0f; v[2] = 0f; }
        return v;
    }

    private Object onBoth(float[] x, java.util.function.BiFunction<Backend, Storage, Storage> op, Layout outLayout,
                          boolean cudaSide) {
        Backend b = cudaSide ? cuda : reference;
        return b.download(op.apply(b, b.upload(DType.FLOAT32, x)), outLayout);
    }

    private void assertSame(float[] x, java.util.function.BiFunction<Backend, Storage, Storage> op, Layout outLayout, String what) {
        Object expected = onBoth(x, op, outLayout, false), actual = onBoth(x, op, outLayout, true);
        if (expected instanceof long[] e) assertArrayEquals(e, (long[]) actual, what);
        else assertArrayEquals((float[]) expected, (float[]) actual, 1e-5f, what);
    }

    private static Layout keepDims(int[] shape, int... dims) {
        int[] s = shape.clone();
        for (int d : dims) s[d] = 1;
        return Layout.contiguous(s);
    }

    @ParameterizedTest
    @EnumSource(value = ReduceOp.class, names = {"SUM", "MAX", "MIN"})
    void valueReductionsOverAnyDimsOfATransposedViewMatchTheReference(ReduceOp op) {
        float[] x = values(7 * 33 * 5, op.ordinal());
        Layout view = Layout.contiguous(5, 33, 7).permute(2, 1, 0); // shape (7, 33, 5), no dim contiguous
        int[][] dimSets = {{0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}};
        for (int[] dims : dimSets) {
            assertSame(x, (b, s) -> b.reduce(op, s, view, dims), keepDims(view.shape(), dims),
                    op + " over " + java.util.Arrays.toString(dims));
        }
    }

    @Test
    void sumOverALongRowCrossesTheBlockAndMatchesTheReference() {
        float[] x = values(2 * 300, 9);
        Layout l = Layout.contiguous(2, 300);
        assertSame(x, (b, s) -> b.reduce(ReduceOp.SUM, s, l, new int[] {1}), Layout.contiguous(2, 1), "sum of 300");
    }

    @Test
    void maxAndMinPropagateNaN() {
        float[] x = values(2 * 65, 4);
        x[70] = Float.NaN;
        Layout l = Layout.contiguous(2, 65);
        float[] max = (float[]) cuda.download(cuda.reduce(ReduceOp.MAX, cuda.upload(DType.FLOAT32, x), l, new int[] {1}),
                Layout.contiguous(2, 1));
        assertEquals(4.5f, max[0], 1f);
        assertEquals(Float.NaN, max[1]);
    }

    @ParameterizedTest
    @EnumSource(value = ReduceOp.class, names = {"ARGMAX", "ARGMIN"})
    void argReductionsTieToTheLowerIndexAndPickTheFirstNaN(ReduceOp op) {
        for (int n : new int[] {1, 7, 33, 130}) {
            float[] x = values(3 * n, n);
            if (n > 40) { x[n + 100] = Float.NaN; x[n + 120] = Float.NaN; }
            Layout rows = Layout.contiguous(3, n);
            assertSame(x, (b, s) -> b.reduce(op, s, rows, new int[] {1}), Layout.contiguous(3, 1), op + " rows of " + n);
            Layout columns = Layout.contiguous(n, 3);
            assertSame(x, (b, s) -> b.reduce(op, s, columns, new int[] {0}), Layout.contiguous(1, 3), op + " columns of " + n);
        }
    }

    @Test
    void reducingAnEmptyDimNamesTheOpAndTheShape() {
        Storage empty = cuda.allocate(DType.FLOAT32, 0);
        var e = assertThrows(IllegalArgumentException.class,
                () -> cuda.reduce(ReduceOp.MAX, empty, Layout.contiguous(3, 0), new int[] {1}));
        assertEquals("MAX: cannot reduce an empty set of elements (dims [1] of shape [3, 0])", e.getMessage());
    }

    @Test
    void cumsumAlongEachDimOfATransposedViewMatchesTheReference() {
        float[] x = values(7 * 33, 5);
        Layout view = Layout.contiguous(33, 7).transpose(0, 1);
        for (int dim = 0; dim < 2; dim++) {
            int d = dim;
            assertSame(x, (b, s) -> b.cumsum(s, view, d), Layout.contiguous(view.shape()), "cumsum dim " + d);
        }
    }

    @Test
    void topkLargestAndSmallestWithTiesAndNaNMatchTheReference() {
        float[] x = values(7 * 33, 6);
        x[40] = Float.NaN;
        Layout view = Layout.contiguous(33, 7).transpose(0, 1); // (7, 33), rows strided
        for (boolean largest : new boolean[] {true, false}) {
            for (int k : new int[] {0, 1, 5, 33}) {
                Backend.TopK c = cuda.topk(cuda.upload(DType.FLOAT32, x), view, 1, k, largest);
                Backend.TopK r = reference.topk(reference.upload(DType.FLOAT32, x), view, 1, k, largest);
                Layout out = Layout.contiguous(7, k);
                String what = (largest ? "largest " : "smallest ") + k;
                assertArrayEquals((float[]) reference.download(r.values(), out), (float[]) cuda.download(c.values(), out), what);
                assertArrayEquals((long[]) reference.download(r.indices(), out), (long[]) cuda.download(c.indices(), out), what);
            }
        }
    }
}
