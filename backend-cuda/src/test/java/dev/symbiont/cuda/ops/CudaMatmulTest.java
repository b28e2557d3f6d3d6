package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Matmul through the GEMM kernel on the PTX interpreter against the reference backend. */
class CudaMatmulTest {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
    private final Backend reference = new ReferenceBackend();

    private static float[] values(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) r.nextGaussian();
        return v;
    }

    /** Both backends' product of a and b (float32 data cast to the given dtypes) through the given layouts. */
    private void assertMatmul(float[] a, Layout la, DType ta, float[] b, Layout lb, DType tb, String what) {
        int rank = la.rank();
        int[] outShape = la.shape().clone();
        outShape[rank - 1] = lb.size(rank - 1);
        Layout out = Layout.contiguous(outShape);
        float[] expected = (float[]) reference.download(product(reference, a, la, ta, b, lb, tb), out);
        float[] actual = (float[]) cuda.download(product(cuda, a, la, ta, b, lb, tb), out);
        assertArrayEquals(expected, actual, 1e-4f, what);
    }

    private static Storage product(Backend be, float[] a, Layout la, DType ta, float[] b, Layout lb, DType tb) {
        Storage sa = be.upload(DType.FLOAT32, a), sb = be.upload(DType.FLOAT32, b);
        if (ta != DType.FLOAT32) sa = be.cast(sa, Layout.contiguous(a.length), ta);
        if (tb != DType.FLOAT32) sb = be.cast(sb, Layout.contiguous(b.length), tb);
        return be.matmul(sa, la, sb, lb);
    }

    @Test
    void float32ProductsAtAwkwardSizesMatchTheReference() {
        int[][] mkn = {{1, 1, 1}, {7, 33, 5}, {33, 7, 17}, {17, 65, 3}};
        for (int[] s : mkn) {
            int m = s[0], k = s[1], n = s[2];
            assertMatmul(values(m * k, m), Layout.contiguous(m, k), DType.FLOAT32,
                    values(k * n, n), Layout.contiguous(k, n), DType.FLOAT32, Arrays.toString(s));
        }
    }

    @Test
    void transposedOperandsMatchTheReference() {
        int m = 17, k = 9, n = 33;
        Layout at = Layout.contiguous(k, m).transpose(0, 1), bt = Layout.contiguous(n, k).transpose(0, 1);
        float[] a = values(m * k, 1), b = values(k * n, 2);
        assertMatmul(a, at, DType.FLOAT32, b, Layout.contiguous(k, n), DType.FLOAT32, "Aᵀ");
        assertMatmul(a, Layout.contiguous(m, k), DType.FLOAT32, b, bt, DType.FLOAT32, "Bᵀ");
        assertMatmul(a, at, DType.FLOAT32, b, bt, DType.FLOAT32, "Aᵀ Bᵀ");
    }

    @Test
    void batchedBroadcastAndCopiedLayoutsMatchTheReference() {
        int batch = 3, m = 5, k = 7, n = 4;
        float[] a = values(2 * batch * m * k, 3), b = values(k * n, 4);
        Layout la = Layout.contiguous(2, batch, m, k);
        Layout lb = Layout.contiguous(1, 1, k, n).expand(2, batch, k, n); // stride-0 batch
        assertMatmul(a, la, DType.FLOAT32, b, lb, DType.FLOAT32, "broadcast batch");
        Layout batchLast = Layout.contiguous(m, k, 2, batch).permute(2, 3, 0, 1); // batch dims do not collapse
        assertMatmul(a, batchLast, DType.FLOAT32, b, lb, DType.FLOAT32, "copied batch");
        Layout everyOther = Layout.contiguous(m, 2 * k).narrow(1, 0, k);
        Layout strided = new Layout(new int[] {m, k}, new int[] {2 * k, 2}, 0); // no unit stride: copied
        assertMatmul(a, strided, DType.FLOAT32, b, Layout.contiguous(k, n), DType.FLOAT32, "strided A");
        assertMatmul(a, everyOther, DType.FLOAT32, b, Layout.contiguous(k, n), DType.FLOAT32, "narrowed A");
    }

    @Test
    void halfPrecisionAndMixedOperandsMatchTheReference() {
        int m = 9, k = 33, n = 7;
        float[] a = values(m * k, 5), b = values(k * n, 6);
        Layout la = Layout.contiguous(m, k), lb = Layout.contiguous(k, n);
        assertMatmul(a, la, DType.BFLOAT16, b, lb, DType.BFLOAT16, "bf16");
        assertMatmul(a, la, DType.FLOAT16, b, lb, DType.FLOAT16, "f16");
        assertMatmul(a, la, DType.BFLOAT16, b, lb, DType.FLOAT32, "bf16 · f32");
        assertMatmul(a, la, DType.FLOAT32, b, Layout.contiguous(n, k).transpose(0, 1), DType.FLOAT16, "f32 · f16ᵀ");
    }

    @Test
    void mismatchedShapesNameBoth() {
        Storage a = cuda.allocate(DType.FLOAT32, 6), b = cuda.allocate(DType.FLOAT32, 6);
        var e = assertThrows(IllegalArgumentException.class, () -> cuda.matmul(a, Layout.contiguous(2, 3), b, Layout.contiguous(2, 3)));
        org.junit.jupiter.api.Assertions.assertEquals("matmul: shapes [2, 3] and [2, 3] do not multiply (expected (batch..., m, k) and (batch..., k, n))", e.getMessage());
    }
}
