package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * matmul on the PTX interpreter (through the GEMM kernel) against the reference backend: plain,
 * transposed, broadcast and strided operands, batches that do and do not collapse to one stride,
 * bfloat16/float16 and mixed operand types.
 */
class CudaMatmulTest {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
    private final Backend reference = new ReferenceBackend();

    private static float[] values(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) r.nextGaussian();
        return v;
    }

    /** The same operand on a backend: float32 values of {@code storageShape}, cast to {@code dtype}. */
    private static Storage operand(Backend backend, DType dtype, int[] storageShape, long seed) {
        Layout whole = Layout.contiguous(storageShape);
        Storage f32 = backend.upload(DType.FLOAT32, values(whole.numel(), seed));
        return dtype == DType.FLOAT32 ? f32 : backend.cast(f32, whole, dtype);
    }

    private void check(DType aType, int[] aStorage, Function<Layout, Layout> aView,
                       DType bType, int[] bStorage, Function<Layout, Layout> bView) {
        Layout aLayout = aView.apply(Layout.contiguous(aStorage)), bLayout = bView.apply(Layout.contiguous(bStorage));
        int[] outShape = aLayout.shape().clone();
        outShape[outShape.length - 1] = bLayout.size(bLayout.rank() - 1);
        Layout out = Layout.contiguous(outShape);
        float[] expected = (float[]) reference.download(reference.matmul(
                operand(reference, aType, aStorage, 1), aLayout, operand(reference, bType, bStorage, 2), bLayout), out);
        float[] actual = (float[]) cuda.download(cuda.matmul(
                operand(cuda, aType, aStorage, 1), aLayout, operand(cuda, bType, bStorage, 2), bLayout), out);
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-5f * Math.max(1, Math.abs(expected[i])), "element " + i + " of " + out);
        }
    }

    @ParameterizedTest(name = "({0}x{1}) * ({1}x{2})")
    @CsvSource({"1, 1, 1", "7, 33, 1", "1, 65, 7", "33, 1, 65", "65, 17, 130", "130, 7, 33"})
    void plainProductsMatchTheReference(int m, int k, int n) {
        check(DType.FLOAT32, new int[]{m, k}, l -> l, DType.FLOAT32, new int[]{k, n}, l -> l);
    }

    @ParameterizedTest(name = "a transposed={0}, b transposed={1}")
    @CsvSource({"true, false", "false, true", "true, true"})
    void transposedViewsMatchTheReference(boolean aTransposed, boolean bTransposed) {
        int m = 33, k = 7, n = 65;
        check(DType.FLOAT32, aTransposed ? new int[]{k, m} : new int[]{m, k}, l -> aTransposed ? l.transpose(0, 1) : l,
                DType.FLOAT32, bTransposed ? new int[]{n, k} : new int[]{k, n}, l -> bTransposed ? l.transpose(0, 1) : l);
    }

    @Test
    void batchedProductsWithCollapsingBatchDimsMatchTheReference() {
        check(DType.FLOAT32, new int[]{2, 3, 5, 7}, l -> l, DType.FLOAT32, new int[]{2, 3, 7, 4}, l -> l);
    }

    @Test
    void aBroadcastBatchOfStrideZeroMatchesTheReference() {
        // b is one (7, 9) matrix expanded over a batch of 3: batch stride 0.
        check(DType.FLOAT32, new int[]{3, 5, 7}, l -> l, DType.FLOAT32, new int[]{1, 7, 9}, l -> l.expand(3, 7, 9));
    }

    @Test
    void batchDimsThatDoNotCollapseRunBatchByBatch() {
        // a's batch dims permuted (strides not nested) and b broadcast along the inner batch dim only.
        check(DType.FLOAT32, new int[]{3, 2, 5, 7}, l -> l.permute(1, 0, 2, 3),
                DType.FLOAT32, new int[]{2, 1, 7, 4}, l -> l.expand(2, 3, 7, 4));
    }

    @Test
    void anOperandWithoutAUnitInnerStrideIsCopiedAndMatchesTheReference() {
        // a (5, 7) from a column expanded along k: stride 0 inside the matrix.
        check(DType.FLOAT32, new int[]{5, 1}, l -> l.expand(5, 7), DType.FLOAT32, new int[]{7, 3}, l -> l);
    }

    @ParameterizedTest(name = "{0} x {1}")
    @CsvSource({"BFLOAT16, BFLOAT16", "FLOAT16, FLOAT16", "FLOAT32, BFLOAT16", "BFLOAT16, FLOAT32", "FLOAT16, FLOAT32", "BFLOAT16, FLOAT16"})
    void lowPrecisionAndMixedOperandsMatchTheReference(DType aType, DType bType) {
        check(aType, new int[]{2, 9, 33}, l -> l, bType, new int[]{2, 65, 33}, l -> l.transpose(1, 2));
    }

    @Test
    void anEmptyInnerDimGivesZeros() {
        Layout out = Layout.contiguous(3, 4);
        float[] actual = (float[]) cuda.download(cuda.matmul(cuda.upload(DType.FLOAT32, new float[0]), Layout.contiguous(3, 0),
                cuda.upload(DType.FLOAT32, new float[0]), Layout.contiguous(0, 4)), out);
        assertEquals(12, actual.length);
        for (float v : actual) assertEquals(0f, v);
    }

    @Test
    void anIntegerOperandIsRejectedNamingTheDtype() {
        Layout l = Layout.contiguous(2, 2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> cuda.matmul(
                cuda.upload(DType.INT32, new int[4]), l, cuda.upload(DType.FLOAT32, new float[4]), l));
        assertTrue(e.getMessage().contains("matmul") && e.getMessage().contains("int32"), e.getMessage());
    }
}
