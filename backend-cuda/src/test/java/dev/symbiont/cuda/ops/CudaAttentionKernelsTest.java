package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.attention.AttentionKernels.AttentionGrads;
import dev.symbiont.core.fused.attention.AttentionKernels.AttentionResult;
import dev.symbiont.core.fused.attention.MaterializedAttention;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The cuda backend's attention kernels (FlashAttention-2 forward and backward, interpreted)
 * against the materialised reference on the reference backend, across the tile boundaries of 16:
 * lengths 1, 17, 64, 65, 130, head_dim 8 to 128 (both kernel widths), grouped-query heads,
 * causality with sq ≠ sk (bottom-right aligned, rows with no visible key), and additive masks
 * with fully masked rows. Output, logsumexp, dq, dk and dv are compared.
 */
class CudaAttentionKernelsTest {
    private static final double TOLERANCE = 1e-4;

    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);
    private final Backend reference = new ReferenceBackend();
    private final AttentionKernels kernels = cuda.fused(AttentionKernels.FAMILY);
    private final AttentionKernels materialized = new MaterializedAttention();

    @ParameterizedTest(name = "batch {0}, heads {1}/{2}, sq {3}, sk {4}, d {5}, causal {6}, mask {7}")
    @CsvSource({
            "2, 4, 2, 17, 17, 8, true, false",
            "1, 4, 1, 1, 130, 64, true, false",
            "1, 2, 2, 65, 64, 64, false, true",
            "1, 4, 2, 130, 65, 16, true, false",
            "1, 1, 1, 64, 130, 128, true, true",
            "1, 2, 1, 17, 65, 128, false, false",
            "2, 4, 4, 17, 1, 8, true, true",
            "1, 4, 2, 130, 130, 64, true, true",
            "2, 4, 1, 64, 17, 128, false, true",
            "1, 2, 2, 1, 1, 8, false, false"})
    void forwardAndGradientsMatchTheReference(int batch, int heads, int kvHeads, int sq, int sk, int d,
                                              boolean causal, boolean withMask) {
        Random random = new Random(31L * sq + 7L * sk + d + heads);
        float[] q = normal(random, batch * heads * sq * d), k = normal(random, batch * kvHeads * sk * d),
                v = normal(random, batch * kvHeads * sk * d), gradOut = normal(random, batch * heads * sq * d);
        float[] mask = withMask ? mask(random, batch, sq, sk) : null;
        int[] qShape = {batch, heads, sq, d}, kShape = {batch, kvHeads, sk, d};
        double scale = 1 / Math.sqrt(d);
        String what = "batch " + batch + ", heads " + heads + "/" + kvHeads + ", sq " + sq + ", sk " + sk + ", d " + d
                + ", causal " + causal + ", mask " + withMask;

        Operands want = new Operands(reference, q, k, v, gradOut, mask, qShape, kShape, heads);
        Operands got = new Operands(cuda, q, k, v, gradOut, mask, qShape, kShape, heads);
        AttentionResult expected = materialized.attention(want.q, want.k, want.v, want.mask, causal, scale);
        AttentionResult actual = kernels.attention(got.q, got.k, got.v, got.mask, causal, scale);
        assertClose(expected.output(), actual.output(), what + ": output");
        assertClose(expected.logsumexp(), actual.logsumexp(), what + ": logsumexp");

        AttentionGrads expectedGrads = materialized.attentionBackward(want.gradOut, want.q, want.k, want.v, want.mask,
                causal, scale, expected.output(), expected.logsumexp());
        AttentionGrads actualGrads = kernels.attentionBackward(got.gradOut, got.q, got.k, got.v, got.mask,
                causal, scale, actual.output(), actual.logsumexp());
        assertClose(expectedGrads.dq(), actualGrads.dq(), what + ": dq");
        assertClose(expectedGrads.dk(), actualGrads.dk(), what + ": dk");
        assertClose(expectedGrads.dv(), actualGrads.dv(), what + ": dv");
    }

    @Test
    void rowsWithoutVisibleKeysGiveZerosAndMinusInfinity() {
        // causal with sq 5 > sk 2: queries 0..2 see no key (j ≤ i − 3)
        Random random = new Random(3);
        Operands in = new Operands(cuda, normal(random, 5 * 4), normal(random, 2 * 4), normal(random, 2 * 4),
                normal(random, 5 * 4), null, new int[] {1, 1, 5, 4}, new int[] {1, 1, 2, 4}, 1);
        AttentionResult r = kernels.attention(in.q, in.k, in.v, null, true, 0.5);
        float[] out = r.output().toFloatArray(), lse = r.logsumexp().toFloatArray();
        for (int i = 0; i < 5; i++) {
            assertEquals(i < 3, lse[i] == Float.NEGATIVE_INFINITY, "logsumexp of row " + i + ": " + lse[i]);
            for (int x = 0; x < 4; x++) {
                if (i < 3) assertEquals(0f, out[i * 4 + x], "output row " + i);
                else assertTrue(out[i * 4 + x] != 0f, "output row " + i + " sees keys");
            }
        }
        AttentionGrads g = kernels.attentionBackward(in.gradOut, in.q, in.k, in.v, null, true, 0.5, r.output(), r.logsumexp());
        float[] dq = g.dq().toFloatArray();
        for (int x = 0; x < 3 * 4; x++) assertEquals(0f, dq[x], "dq of a row without keys");
    }

    @Test
    void resultsOfHeadSplitViewsComeInTheirDimOrderAndMatchTheReference() {
        // q, k, v as (batch, seq, heads, d) buffers seen as (batch, heads, seq, d), as attention layers split them
        Random random = new Random(11);
        int batch = 2, heads = 4, kvHeads = 2, sq = 17, sk = 20, d = 8;
        float[] q = normal(random, batch * sq * heads * d), k = normal(random, batch * sk * kvHeads * d),
                v = normal(random, batch * sk * kvHeads * d), gradOut = normal(random, batch * heads * sq * d);
        Tensor[] want = split(reference, q, k, v, gradOut, batch, heads, kvHeads, sq, sk, d);
        Tensor[] got = split(cuda, q, k, v, gradOut, batch, heads, kvHeads, sq, sk, d);
        AttentionResult expected = materialized.attention(want[0], want[1], want[2], null, true, 0.3);
        AttentionResult actual = kernels.attention(got[0], got[1], got[2], null, true, 0.3);
        assertTrue(actual.output().transpose(1, 2).isContiguous(), "the output is (batch, sq, heads, d) in memory");
        assertClose(expected.output(), actual.output(), "split heads: output");
        AttentionGrads e = materialized.attentionBackward(want[3], want[0], want[1], want[2], null, true, 0.3,
                expected.output(), expected.logsumexp());
        AttentionGrads a = kernels.attentionBackward(got[3], got[0], got[1], got[2], null, true, 0.3,
                actual.output(), actual.logsumexp());
        for (Tensor g : new Tensor[] {a.dq(), a.dk(), a.dv()}) {
            assertTrue(g.transpose(1, 2).isContiguous(), "a gradient is (batch, seq, heads, d) in memory");
        }
        assertClose(e.dq(), a.dq(), "split heads: dq");
        assertClose(e.dk(), a.dk(), "split heads: dk");
        assertClose(e.dv(), a.dv(), "split heads: dv");
    }

    /** q, k, v as transposed (batch, seq, heads, d) buffers and a contiguous output gradient. */
    private static Tensor[] split(Backend be, float[] q, float[] k, float[] v, float[] gradOut,
                                  int batch, int heads, int kvHeads, int sq, int sk, int d) {
        return new Tensor[] {
                new Tensor(be.upload(DType.FLOAT32, q), Layout.contiguous(batch, sq, heads, d).transpose(1, 2)),
                new Tensor(be.upload(DType.FLOAT32, k), Layout.contiguous(batch, sk, kvHeads, d).transpose(1, 2)),
                new Tensor(be.upload(DType.FLOAT32, v), Layout.contiguous(batch, sk, kvHeads, d).transpose(1, 2)),
                new Tensor(be.upload(DType.FLOAT32, gradOut), Layout.contiguous(batch, heads, sq, d))};
    }

    @Test
    void headDimAboveTheKernelsFallsBackToTheReference() {
        Random random = new Random(5);
        int d = 130;
        float[] q = normal(random, 3 * d), k = normal(random, 2 * d), v = normal(random, 2 * d);
        int[] qShape = {1, 1, 3, d}, kShape = {1, 1, 2, d};
        Operands want = new Operands(reference, q, k, v, q, null, qShape, kShape, 1);
        Operands got = new Operands(cuda, q, k, v, q, null, qShape, kShape, 1);
        long before = Fallbacks.count("scaled_dot_product_attention");
        AttentionResult actual = kernels.attention(got.q, got.k, got.v, null, false, 0.1);
        assertEquals(before + 1, Fallbacks.count("scaled_dot_product_attention"), "the fallback is recorded");
        assertClose(materialized.attention(want.q, want.k, want.v, null, false, 0.1).output(), actual.output(), "d 130");
    }

    /** q, k, v, the output gradient and the (batch, heads, sq, sk)-expanded mask on one backend. */
    private record Operands(Tensor q, Tensor k, Tensor v, Tensor gradOut, Tensor mask) {
        Operands(Backend be, float[] q, float[] k, float[] v, float[] gradOut, float[] mask, int[] qShape, int[] kShape,
                 int heads) {
            this(tensor(be, q, qShape), tensor(be, k, kShape), tensor(be, v, kShape), tensor(be, gradOut, qShape),
                    mask == null ? null : new Tensor(be.upload(DType.FLOAT32, mask),
                            Layout.contiguous(qShape[0], 1, qShape[2], kShape[2]).expand(qShape[0], heads, qShape[2], kShape[2])));
        }

        private static Tensor tensor(Backend be, float[] data, int[] shape) {
            return new Tensor(be.upload(DType.FLOAT32, data), Layout.contiguous(shape));
        }
    }

    static float[] normal(Random random, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) x[i] = (float) random.nextGaussian();
        return x;
    }

    /** A (batch, 1, sq, sk) additive mask: biases, −∞ entries, and query row 1 wholly −∞. */
    static float[] mask(Random random, int batch, int sq, int sk) {
        float[] m = new float[batch * sq * sk];
        for (int i = 0; i < m.length; i++) {
            int row = i / sk % sq;
            m[i] = row == 1 || random.nextInt(5) == 0 ? Float.NEGATIVE_INFINITY : (float) random.nextGaussian();
        }
        return m;
    }

    private static void assertClose(Tensor expected, Tensor actual, String what) {
        assertNotNull(actual, what);
        assertEquals(java.util.Arrays.toString(expected.shape()), java.util.Arrays.toString(actual.shape()), what + ": shape");
        float[] e = expected.toFloatArray(), a = actual.toFloatArray();
        for (int i = 0; i < e.length; i++) {
            boolean same = e[i] == a[i] || Math.abs(e[i] - a[i]) <= TOLERANCE * (1 + Math.abs(e[i]));
            if (!same) fail(what + ": element " + i + " is " + a[i] + ", expected " + e[i]);
        }
    }
}
