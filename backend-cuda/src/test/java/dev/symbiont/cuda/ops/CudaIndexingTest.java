package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.util.OptionalLong;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The index check, indexSelect, gather and scatterAdd kernels on the PTX interpreter against the reference backend. */
class CudaIndexingTest {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
    private final Backend reference = new ReferenceBackend();

    private static float[] floats(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) r.nextGaussian();
        return v;
    }

    private static long[] ids(int n, int bound, long seed) {
        Random r = new Random(seed);
        long[] v = new long[n];
        for (int i = 0; i < n; i++) v[i] = r.nextInt(bound);
        return v;
    }

    private static int[] ints(long[] v) {
        int[] out = new int[v.length];
        for (int i = 0; i < v.length; i++) out[i] = (int) v[i];
        return out;
    }

    private static Storage upload(Backend b, Object array) {
        return switch (array) {
            case float[] f -> b.upload(DType.FLOAT32, MemorySegment.ofArray(f));
            case long[] l -> b.upload(DType.INT64, MemorySegment.ofArray(l));
            case int[] i -> b.upload(DType.INT32, MemorySegment.ofArray(i));
            default -> throw new IllegalArgumentException(array.getClass().toString());
        };
    }

    @Test
    void checkIndexWritesIdsAndKeepLikeTheReference() {
        long[] raw = ids(33, 7, 1);
        raw[3] = -100;
        raw[20] = -100;
        for (Object idArray : new Object[] {raw, ints(raw)}) {
            Layout l = Layout.contiguous(3, 11).transpose(0, 1); // (11, 3) strided
            var c = cuda.checkIndex("embedding", upload(cuda, idArray), l, 7, OptionalLong.of(-100));
            var r = reference.checkIndex("embedding", upload(reference, idArray), l, 7, OptionalLong.of(-100));
            Layout out = Layout.contiguous(11, 3);
            assertArrayEquals((long[]) reference.download(r.ids(), out), (long[]) cuda.download(c.ids(), out));
            assertArrayEquals((float[]) reference.download(r.keep(), out), (float[]) cuda.download(c.keep(), out));
        }
    }

    @Test
    void anOutOfRangeIdRaisesTheReferenceMessageAtTheNextSynchronisation() {
        long[] raw = ids(12, 5, 2);
        raw[7] = 9;
        raw[10] = -3;
        Layout l = Layout.contiguous(3, 4);
        var expected = assertThrows(IndexOutOfBoundsException.class,
                () -> reference.checkIndex("nll", upload(reference, raw), l, 5, OptionalLong.of(-1)));
        cuda.checkIndex("nll", upload(cuda, raw), l, 5, OptionalLong.of(-1));
        var actual = assertThrows(IndexOutOfBoundsException.class, cuda::synchronize);
        assertEquals(expected.getMessage(), actual.getMessage());
        cuda.synchronize(); // raised once, then cleared
    }

    @Test
    void indexSelectAlongEachDimOfATransposedViewMatchesTheReference() {
        float[] x = floats(7 * 33, 3);
        Layout view = Layout.contiguous(33, 7).transpose(0, 1); // (7, 33)
        for (int dim = 0; dim < 2; dim++) {
            long[] idx = ids(65, view.size(dim), 4 + dim);
            for (Object index : new Object[] {idx, ints(idx)}) {
                int d = dim;
                Storage c = cuda.indexSelect(upload(cuda, x), view, d, upload(cuda, index), Layout.contiguous(65));
                Storage r = reference.indexSelect(upload(reference, x), view, d, upload(reference, index), Layout.contiguous(65));
                int[] shape = view.shape().clone();
                shape[d] = 65;
                Layout out = Layout.contiguous(shape);
                assertArrayEquals((float[]) reference.download(r, out), (float[]) cuda.download(c, out), "dim " + d);
            }
        }
    }

    @Test
    void gatherOfInt64AndFloatValuesMatchesTheReference() {
        long[] xl = ids(7 * 9, 1000, 5);
        Layout xLayout = Layout.contiguous(7, 9);
        long[] idx = ids(7 * 5, 9, 6);
        Layout idxLayout = Layout.contiguous(7, 5);
        Storage c = cuda.gather(upload(cuda, xl), xLayout, 1, upload(cuda, idx), idxLayout);
        Storage r = reference.gather(upload(reference, xl), xLayout, 1, upload(reference, idx), idxLayout);
        assertArrayEquals((long[]) reference.download(r, idxLayout), (long[]) cuda.download(c, idxLayout));

        float[] xf = floats(33 * 4, 7);
        Layout xt = Layout.contiguous(4, 33).transpose(0, 1); // (33, 4)
        int[] rows = ints(ids(2 * 4, 33, 8));
        Layout rowsLayout = Layout.contiguous(2, 4);
        Storage cf = cuda.gather(upload(cuda, xf), xt, 0, upload(cuda, rows), rowsLayout);
        Storage rf = reference.gather(upload(reference, xf), xt, 0, upload(reference, rows), rowsLayout);
        assertArrayEquals((float[]) reference.download(rf, rowsLayout), (float[]) cuda.download(cf, rowsLayout));
    }

    @Test
    void scatterAddWithRepeatedIndicesMatchesTheReference() {
        float[] base = floats(5 * 7, 9), src = floats(33 * 7, 10);
        long[] idx = ids(33 * 7, 5, 11); // many repeats along dim 0
        Layout baseLayout = Layout.contiguous(5, 7), idxLayout = Layout.contiguous(33, 7);
        Storage c = cuda.scatterAdd(upload(cuda, base), baseLayout, 0, upload(cuda, idx), idxLayout, upload(cuda, src), idxLayout);
        Storage r = reference.scatterAdd(upload(reference, base), baseLayout, 0, upload(reference, idx), idxLayout,
                upload(reference, src), idxLayout);
        assertArrayEquals((float[]) reference.download(r, baseLayout), (float[]) cuda.download(c, baseLayout), 1e-5f);
    }

    @Test
    void anOutOfRangeGatherIndexRaisesTheReferenceMessage() {
        float[] x = floats(4 * 3, 12);
        long[] idx = {0, 1, 2, 3, 5, 1};
        Layout xLayout = Layout.contiguous(4, 3), idxLayout = Layout.contiguous(2, 3);
        var expected = assertThrows(IndexOutOfBoundsException.class,
                () -> reference.gather(upload(reference, x), xLayout, 1, upload(reference, idx), idxLayout));
        Storage out = cuda.gather(upload(cuda, x), xLayout, 1, upload(cuda, idx), idxLayout);
        var actual = assertThrows(IndexOutOfBoundsException.class, () -> cuda.download(out, idxLayout));
        assertEquals(expected.getMessage(), actual.getMessage());
    }
}
