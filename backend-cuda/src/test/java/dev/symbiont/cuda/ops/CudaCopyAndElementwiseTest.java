package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BinaryOp;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.backend.UnaryOp;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** The copy, cast and elementwise kernels on the PTX interpreter against the reference backend. */
class CudaCopyAndElementwiseTest {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
    private final Backend reference = new ReferenceBackend();

    private static float[] values(int n, long seed) {
        Random r = new Random(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) (r.nextGaussian() * 3);
        return v;
    }

    @Test
    void stridedCopyOfATransposedViewMatchesTheReference() {
        float[] x = values(5 * 7, 1);
        Layout t = Layout.contiguous(5, 7).transpose(0, 1);
        Storage c = cuda.contiguous(cuda.upload(DType.FLOAT32, x), t);
        Storage r = reference.contiguous(reference.upload(DType.FLOAT32, x), t);
        assertArrayEquals((float[]) reference.download(r, Layout.contiguous(7, 5)), (float[]) cuda.download(c, Layout.contiguous(7, 5)));
    }

    @ParameterizedTest
    @EnumSource(UnaryOp.class)
    void unaryMatchesTheReference(UnaryOp op) {
        float[] x = values(300, op.ordinal());
        x[0] = Float.NaN;
        x[1] = 0f;
        x[2] = -0f;
        x[3] = 30f;
        Layout l = Layout.contiguous(300);
        float[] expected = (float[]) reference.download(reference.unary(op, reference.upload(DType.FLOAT32, x), l), l);
        float[] actual = (float[]) cuda.download(cuda.unary(op, cuda.upload(DType.FLOAT32, x), l), l);
        for (int i = 0; i < x.length; i++) {
            float tolerance = 2e-6f * Math.max(1, Math.abs(expected[i]));
            if (Float.isNaN(expected[i])) assertEquals(Float.NaN, actual[i], op + " at " + x[i]);
            else assertEquals(expected[i], actual[i], tolerance, op + " at " + x[i]);
        }
    }

    @ParameterizedTest
    @EnumSource(BinaryOp.class)
    void binaryWithABroadcastOperandMatchesTheReference(BinaryOp op) {
        float[] a = values(33 * 4, 10 + op.ordinal()), b = values(4, 20 + op.ordinal());
        b[1] = a[1];
        Layout la = Layout.contiguous(33, 4), lb = Layout.contiguous(4).unsqueeze(0).expand(33, 4);
        float[] expected = (float[]) reference.download(reference.binary(op, reference.upload(DType.FLOAT32, a), la,
                reference.upload(DType.FLOAT32, b), lb), la);
        float[] actual = (float[]) cuda.download(cuda.binary(op, cuda.upload(DType.FLOAT32, a), la,
                cuda.upload(DType.FLOAT32, b), lb), la);
        for (int i = 0; i < expected.length; i++) {
            if (Float.isNaN(expected[i])) assertEquals(Float.NaN, actual[i], op + " at " + i);
            else assertEquals(expected[i], actual[i], 2e-6f * Math.max(1, Math.abs(expected[i])), op + " at " + i);
        }
    }

    @Test
    void castsBetweenEveryDtypePairGiveTheReferenceBits() {
        float[] x = values(65, 3);
        x[0] = Float.NaN;
        x[1] = 1e10f;
        x[2] = -1e10f;
        x[3] = 0.5f;
        x[4] = 1.5f;
        x[5] = 65504f * 2;
        Layout l = Layout.contiguous(65);
        for (DType from : DType.values()) {
            Storage rf = reference.cast(reference.upload(DType.FLOAT32, x), l, from);
            Object host = reference.download(rf, l);
            for (DType to : DType.values()) {
                Object expected = reference.download(reference.cast(rf, l, to), l);
                Object actual = cuda.download(cuda.cast(cuda.upload(from, host), l, to), l);
                assertEquals(java.util.Arrays.deepToString(new Object[] {expected}), java.util.Arrays.deepToString(new Object[] {actual}),
                        from + " -> " + to);
            }
        }
    }
}
