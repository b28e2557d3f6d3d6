package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.attention.AttentionKernels.AttentionResult;
import dev.symbiont.core.fused.attention.MaterializedAttention;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The tensor-core attention forward ({@code attention_mma.cu}, interpreted) on bfloat16 and
 * float16 q, k, v against the materialised reference on the same rounded values widened to
 * float32: query tiles of 64 and key tiles of 32 crossed (sq 65, sk 33 and 70), head_dim 64 and
 * 128 and smaller ones padded into them, grouped-query heads, causality with sq ≠ sk (rows with
 * no visible key) and additive masks with a fully masked row.
 *
 * <p>Tolerance: the kernel rounds P to the input dtype before O += P·V, so an output element
 * differs from the float32 result by at most the unit roundoff u (2⁻⁸ for bfloat16, 2⁻¹¹ for
 * float16) times max|v|: O = Σ p̂ⱼvⱼ / Σ pⱼ with |p̂ⱼ − pⱼ| ≤ u·pⱼ. The float32 sums add the
 * float32 kernels' 1e-4 relative. The logsumexp uses unrounded P: the float32 tolerance.
 */
class CudaAttentionMmaTest {
    private static final double FLOAT32 = 1e-4;

    private final InterpretedDriver driver = new InterpretedDriver();
    private final CudaBackend cuda = new CudaBackend(driver, 0);
    private final Backend reference = new ReferenceBackend();

    @ParameterizedTest(name = "{0}: batch {1}, heads {2}/{3}, sq {4}, sk {5}, d {6}, causal {7}, mask {8}")
    @CsvSource({
            "BFLOAT16, 1, 4, 2, 17, 40, 64, true, false",
            "FLOAT16, 1, 2, 1, 65, 33, 128, false, true",
            "BFLOAT16, 2, 2, 2, 65, 70, 128, true, true",
            "FLOAT16, 1, 4, 4, 3, 1, 8, true, false",
            "BFLOAT16, 1, 2, 1, 40, 17, 33, false, false",
            "FLOAT16, 1, 2, 2, 17, 17, 64, true, true"})
    void halfInputsMatchTheReferenceWithinTheRoundingOfP(DType dtype, int batch, int heads, int kvHeads, int sq, int sk, int d,
                                                         boolean causal, boolean withMask) {
        Random random = new Random(17L * sq + 5L * sk + d + heads);
        int[] qShape = {batch, heads, sq, d}, kShape = {batch, kvHeads, sk, d};
        float[] q = CudaAttentionKernelsTest.normal(random, batch * heads * sq * d),
                k = CudaAttentionKernelsTest.normal(random, batch * kvHeads * sk * d),
                v = CudaAttentionKernelsTest.normal(random, batch * kvHeads * sk * d);
        float[] mask = withMask ? CudaAttentionKernelsTest.mask(random, batch, sq, sk) : null;
        double scale = 1 / Math.sqrt(d);
        String what = dtype + ": batch " + batch + ", heads " + heads + "/" + kvHeads + ", sq " + sq + ", sk " + sk + ", d " + d
                + ", causal " + causal + ", mask " + withMask;

        Tensor wq = rounded(reference, q, qShape, dtype), wk = rounded(reference, k, kShape, dtype), wv = rounded(reference, v, kShape, dtype);
        AttentionResult expected = new MaterializedAttention().attention(wq, wk, wv, mask(reference, mask, qShape, sk), causal, scale);

        Tensor gq = half(cuda, q, qShape, dtype), gk = half(cuda, k, kShape, dtype), gv = half(cuda, v, kShape, dtype);
        Tensor gm = mask(cuda, mask, qShape, sk);
        long before = driver.launches();
        AttentionResult actual = cuda.fused(AttentionKernels.FAMILY).attention(gq, gk, gv, gm, causal, scale);
        assertEquals(before + 1, driver.launches(), what + ": one launch reading the half inputs, no widening casts");

        double maxV = 0;
        for (float x : wv.toFloatArray()) maxV = Math.max(maxV, Math.abs(x));
        double unitRoundoff = dtype == DType.BFLOAT16 ? 0x1p-8 : 0x1p-11;
        assertClose(expected.output(), actual.output(), unitRoundoff * maxV, what + ": output");
        assertClose(expected.logsumexp(), actual.logsumexp(), 0, what + ": logsumexp");
    }

    static Tensor rounded(Backend be, float[] data, int[] shape, DType dtype) {
        return half(be, data, shape, dtype).to(DType.FLOAT32);
    }

    static Tensor half(Backend be, float[] data, int[] shape, DType dtype) {
        return new Tensor(be.upload(DType.FLOAT32, data), Layout.contiguous(shape)).to(dtype);
    }

    /** The (batch, 1, sq, sk) mask expanded to (batch, heads, sq, sk); null: none. */
    static Tensor mask(Backend be, float[] mask, int[] qShape, int sk) {
        if (mask == null) return null;
        return new Tensor(be.upload(DType.FLOAT32, mask), Layout.contiguous(qShape[0], 1, qShape[2], sk).expand(qShape[0], qShape[1], qShape[2], sk));
    }

    /** Equal (infinities and zeros of empty rows included) or within {@code abs} plus the float32 relative tolerance. */
    private static void assertClose(Tensor expected, Tensor actual, double abs, String what) {
        assertEquals(Arrays.toString(expected.shape()), Arrays.toString(actual.shape()), what + ": shape");
        float[] e = expected.toFloatArray(), a = actual.toFloatArray();
        for (int i = 0; i < e.length; i++) {
            boolean same = e[i] == a[i] || Math.abs(e[i] - a[i]) <= abs + FLOAT32 * (1 + Math.abs(e[i]));
            if (!same) fail(what + ": element " + i + " is " + a[i] + ", expected " + e[i]);
        }
    }
}
