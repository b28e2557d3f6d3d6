package dev.symbiont.core;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Tensor.toString(): shape, dtype, backend and a preview that elides long dims. */
class TensorToStringTest {

    private static void assertContains(String s, String... parts) {
        for (String p : parts) assertTrue(s.contains(p), "'" + p + "' not in:\n" + s);
    }

    @Test
    void smallTensorsPrintWholeWithShapeDtypeAndBackend() {
        String s = Tensor.fromArray(new float[] {1, 2.5f, -3, 4}, 2, 2).toString();
        assertContains(s, "shape=[2, 2]", "dtype=float32", "backend=reference", "1.0000", "2.5000", "-3.0000", "4.0000");
        assertFalse(s.contains("..."));
    }

    @Test
    void longDimsAreElidedWithDots() {
        String s = Tensor.arange(100).toString();
        assertContains(s, "shape=[100]", "...", "0.0000", "2.0000", "97.0000", "99.0000");
        assertFalse(s.contains("50.0000"), s);
        String m = Tensor.arange(0, 400, 1, DType.FLOAT32).reshape(20, 20).toString();
        assertContains(m, "shape=[20, 20]", "...", "399.0000");
        assertFalse(m.contains("200.0000"), m);
    }

    @Test
    void integerTensorsPrintWithoutDecimalsAndHalvesNameTheirType() {
        String s = Tensor.fromArray(new long[] {3, -7, 12}).toString();
        assertContains(s, "dtype=int64", "[3, -7, 12]");
        assertContains(Tensor.ones(2).to(DType.BFLOAT16).toString(), "dtype=bfloat16", "1.0000");
    }

    @Test
    void scalarsEmptyTensorsAndSpecialValuesPrint() {
        assertContains(Tensor.scalar(1.5f).reshape().toString(), "shape=[]", "1.5000");
        assertContains(Tensor.zeros(0, 3).toString(), "shape=[0, 3]");
        assertContains(Tensor.fromArray(new float[] {Float.NaN, Float.NEGATIVE_INFINITY}).toString(), "NaN", "-Infinity");
    }

    @Test
    void autogradStateIsShown() {
        Tensor x = Tensor.ones(2).requiresGrad(true);
        assertContains(x.toString(), "requires_grad=true");
        assertContains(x.exp().toString(), "grad_fn=expBackward");
    }

    @Test
    void nonContiguousViewsPrintTheirOwnOrder() {
        String s = Tensor.fromArray(new float[] {1, 2, 3, 4, 5, 6}, 2, 3).t().toString();
        assertContains(s, "shape=[3, 2]", "[[1.0000, 4.0000]");
    }
}
