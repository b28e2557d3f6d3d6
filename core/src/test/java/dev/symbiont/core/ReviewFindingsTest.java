package dev.symbiont.core;

import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/** Edge cases found in review: empty and size-1 dims, stride-0 views, slices, shared inputs. */
class ReviewFindingsTest {
    private static final ReferenceBackend REF = new ReferenceBackend();

    private static Tensor t(float[] v, int... shape) {
        try (var s = Backends.use(REF)) { return Tensor.fromArray(v, shape); }
    }

    private static float[] seq(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = i + 1;
        return v;
    }

    @Test
    void emptyLayoutsAreContiguous() {
        assertTrue(Layout.contiguous(2, 0).isContiguous());
        assertTrue(Layout.contiguous(0, 3).isContiguous());
        assertTrue(Layout.contiguous(2, 0, 3).isContiguous());
    }

    @Test
    void sameTensorTwiceInOneOpGetsBothGradients() {
        Tensor x = t(new float[] {1, -2, 3}, 3).requiresGrad(true);
        x.mul(x).sum().backward();
        assertArrayEquals(new float[] {2, -4, 6}, x.grad().toFloatArray(), 1e-6f);
        Tensor y = t(new float[] {1, 2, 3}, 3).requiresGrad(true);
        y.matmul(y).backward();
        assertArrayEquals(new float[] {2, 4, 6}, y.grad().toFloatArray(), 1e-6f);
        Tensor z = t(seq(4), 2, 2).requiresGrad(true);
        z.matmul(z).sum().backward();
        // d/dz sum(z z) = 1 z^T + z^T 1
        float[] zz = {1, 2, 3, 4};
        float[] exp = new float[4];
        for (int i = 0; i < 2; i++) for (int j = 0; j < 2; j++) {
            // grad = ones @ z^T + z^T @ ones
            exp[i * 2 + j] = (zz[j * 2] + zz[j * 2 + 1]) + (zz[i] + zz[2 + i]);
        }
        assertArrayEquals(exp, z.grad().toFloatArray(), 1e-5f);
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
    void reductionsWithNegativeDimsKeepdimAndEmptyTensors() {
        Tensor x = t(seq(24), 2, 3, 4);
        Tensor a = x.sum(new int[] {-1, 0}, false);
        assertArrayEquals(new int[] {3}, a.shape());
        assertArrayEquals(new float[] {1 + 2 + 3 + 4 + 13 + 14 + 15 + 16, 5 + 6 + 7 + 8 + 17 + 18 + 19 + 20,
                9 + 10 + 11 + 12 + 21 + 22 + 23 + 24}, a.toFloatArray());
        assertArrayEquals(new int[] {1, 3, 1}, x.amax(new int[] {-1, -3}, true).shape());
        Tensor empty = t(new float[0], 0, 3);
        assertArrayEquals(new float[] {0, 0, 0}, empty.sum(0, false).toFloatArray());
        assertArrayEquals(new int[] {0}, empty.sum(1, false).shape());
        assertTrue(Float.isNaN(empty.mean().item()));
        assertThrows(IllegalArgumentException.class, () -> empty.max(0, false));
        assertThrows(IllegalArgumentException.class, () -> x.sum(new int[] {1, -2}, false));
        assertThrows(IllegalArgumentException.class, () -> x.sum(3, false));
    }

    @Test
    void matmulOneDimensionalAndBroadcastCasesMatchHandComputedValues() {
        Tensor v = t(new float[] {1, 2}, 2);
        Tensor m = t(seq(6), 2, 3);
        assertArrayEquals(new float[] {9, 12, 15}, v.matmul(m).toFloatArray());
        Tensor b = t(seq(12), 2, 2, 3);
        Tensor vb = v.matmul(b);
        assertArrayEquals(new int[] {2, 3}, vb.shape());
        assertArrayEquals(new float[] {9, 12, 15, 27, 30, 33}, vb.toFloatArray());
        Tensor w = t(new float[] {1, 0, -1}, 3);
        Tensor bw = b.matmul(w);
        assertArrayEquals(new int[] {2, 2}, bw.shape());
        assertArrayEquals(new float[] {-2, -2, -2, -2}, bw.toFloatArray());
        Tensor k0 = t(new float[0], 2, 0).matmul(t(new float[0], 0, 3));
        assertArrayEquals(new float[6], k0.toFloatArray());
        Tensor dot0 = t(new float[0], 0).matmul(t(new float[0], 0));
        assertEquals(0, dot0.dim());
        assertEquals(0f, dot0.item());
    }

    @Test
    void matmulGradientsWithOneDimensionalAndBroadcastOperands() {
        Tensor v = t(new float[] {1, 2}, 2).requiresGrad(true);
        Tensor b = t(seq(12), 2, 2, 3).requiresGrad(true);
        v.matmul(b).sum().backward();
        // d/dv = sum over batch and n of b[., k, n]
        assertArrayEquals(new float[] {1 + 2 + 3 + 7 + 8 + 9, 4 + 5 + 6 + 10 + 11 + 12}, v.grad().toFloatArray());
        assertArrayEquals(new float[] {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2}, b.grad().toFloatArray());
    }

    @Test
    void powGradientAtZeroBaseIsFinite() {
        Tensor x = t(new float[] {0, 2}, 2).requiresGrad(true);
        x.pow(2.0).sum().backward();
        assertArrayEquals(new float[] {0, 4}, x.grad().toFloatArray());
        Tensor y = t(new float[] {0, 2}, 2).requiresGrad(true);
        y.pow(0.0).sum().backward();
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
    void maxGradientSplitsTiesAndFollowsKeepdim() {
        Tensor x = t(new float[] {1, 3, 3, 2, 0, 2}, 2, 3).requiresGrad(true);
        x.max(-1, false).mul(t(new float[] {1, 10}, 2)).sum().backward();
        assertArrayEquals(new float[] {0, 0.5f, 0.5f, 5, 0, 5}, x.grad().toFloatArray(), 1e-6f);
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
    void powExponentGradientAtZeroBaseIsZeroForNonNegativeExponents() {
        Tensor x = t(new float[] {0, 2, 0}, 3);
        Tensor e = t(new float[] {2, 1, 0}, 3).requiresGrad(true);
        x.pow(e).sum().backward();
        assertArrayEquals(new float[] {0, (float) (2 * Math.log(2)), 0}, e.grad().toFloatArray(), 1e-6f);
    }

    @Test
    void layoutWhoseExtentPassesTwoToTheThirtyOneIsRejectedNotWrapped() {
        Layout huge = new Layout(new int[] {4, 2}, new int[] {Integer.MAX_VALUE / 2, 1}, 0);
        var e = assertThrows(IllegalArgumentException.class, huge::maxIndex);
        assertTrue(e.getMessage().contains("past 2^31 - 1"), e.getMessage());
    }

    @Test
    void backwardRejectsAGradientOfAnotherDtypeOrBackend() {
        Tensor x = t(seq(3), 3).requiresGrad(true);
        Tensor y = x.mul(2.0);
        Tensor intGrad;
        try (var s = Backends.use(REF)) { intGrad = Tensor.fromArray(new int[] {1, 1, 1}); }
        var e = assertThrows(IllegalArgumentException.class, () -> y.backward(intGrad));
        assertTrue(e.getMessage().startsWith("backward: gradient is int32"), e.getMessage());
        Tensor elsewhere;
        try (var s = Backends.use(new ReferenceBackend())) { elsewhere = Tensor.ones(3); }
        assertThrows(IllegalArgumentException.class, () -> y.backward(elsewhere));
    }
}
