package dev.symbiont.cuda.ops;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.attention.AttentionKernels.AttentionGrads;
import dev.symbiont.core.fused.attention.AttentionKernels.AttentionResult;
import dev.symbiont.core.fused.attention.MaterializedAttention;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.symbiont.cuda.ops.CudaAttentionMmaTest.half;
import static dev.symbiont.cuda.ops.CudaAttentionMmaTest.mask;
import static dev.symbiont.cuda.ops.CudaAttentionMmaTest.rounded;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The tensor-core attention backward ({@code attention_mma_backward.cu}, interpreted) on bfloat16
 * and float16 q, k, v against the materialised reference backward on the same rounded values
 * widened to float32, given the reference's output and logsumexp: key and query tiles of 64 and
 * 16 crossed (sk 65 and 70, sq 17, 65, 70), head_dim 64 and 128 and smaller ones padded into them,
 * grouped-query heads (dK and dV summed over a group), causality with sq ≠ sk (rows with no
 * visible key, key tiles no query sees) and additive masks with a fully masked row. The launches
 * are the row dots and the two tensor-core kernels: no widening cast.
 *
 * <p>Bound: the kernels compute S, dP and D in float32 from the inputs and round three operands to
 * the input dtype (unit roundoff u: 2⁻⁸ for bfloat16, 2⁻¹¹ for float16: 8 and 11 significant bits): dO where it is an operand
 * (dV = Pᵀ·dO and dP = dO·Vᵀ), P in dV, and dS in dK = dSᵀ·Q·scale and dQ = dS·K·scale. So
 * |dV̂ − dV|[j][x] ≤ 2u·Σᵢ P[i][j]·|dO[i][x]|; dP is off by at most u·A[i][j], A = Σₓ |dO[i][x]·v[j][x]|,
 * so dS = P∘(dP − D) by at most E = u·(P·A + |dS|) after its own rounding, and
 * |dK̂ − dK|[j][x] ≤ scale·Σᵢ E[i][j]·|q[i][x]|, |dQ̂ − dQ|[i][x] ≤ scale·Σⱼ E[i][j]·|k[j][x]|
 * (the sums over i run over the query heads of k's group). The bounds are evaluated in double on
 * the rounded values, with 5 % room for the second-order terms; the float32 sums add the float32
 * kernels' 1e-4 relative.
 */
class CudaAttentionMmaBackwardTest {
    private static final double FLOAT32 = 1e-4, SECOND_ORDER = 1.05;

    private final InterpretedDriver driver = new InterpretedDriver();
    private final CudaBackend cuda = new CudaBackend(driver, 0);
    private final Backend reference = new ReferenceBackend();

    @ParameterizedTest(name = "{0}: batch {1}, heads {2}/{3}, sq {4}, sk {5}, d {6}, causal {7}, mask {8}")
    @CsvSource({
            "BFLOAT16, 1, 4, 2, 17, 70, 64, true, false",
            "FLOAT16, 1, 2, 1, 65, 33, 128, false, true",
            "BFLOAT16, 1, 2, 2, 70, 65, 128, true, true",
            "FLOAT16, 2, 2, 1, 20, 17, 40, true, false",
            "BFLOAT16, 1, 4, 4, 3, 1, 8, false, true",
            "FLOAT16, 1, 1, 1, 17, 70, 64, false, false",
            "BFLOAT16, 2, 4, 2, 9, 13, 8, true, false"})
    void halfInputGradientsMatchTheReferenceWithinTheRoundingOfTheirOperands(DType dtype, int batch, int heads, int kvHeads,
                                                                           int sq, int sk, int d, boolean causal, boolean withMask) {
        Random random = new Random(13L * sq + 3L * sk + d + heads);
        int[] qShape = {batch, heads, sq, d}, kShape = {batch, kvHeads, sk, d};
        float[] q = CudaAttentionKernelsTest.normal(random, batch * heads * sq * d),
                k = CudaAttentionKernelsTest.normal(random, batch * kvHeads * sk * d),
                v = CudaAttentionKernelsTest.normal(random, batch * kvHeads * sk * d),
                gradOut = CudaAttentionKernelsTest.normal(random, batch * heads * sq * d);
        float[] mask = withMask ? CudaAttentionKernelsTest.mask(random, batch, sq, sk) : null;
        double scale = 1 / Math.sqrt(d);
        String what = dtype + ": batch " + batch + ", heads " + heads + "/" + kvHeads + ", sq " + sq + ", sk " + sk + ", d " + d
                + ", causal " + causal + ", mask " + withMask;

        Tensor wq = rounded(reference, q, qShape, dtype), wk = rounded(reference, k, kShape, dtype), wv = rounded(reference, v, kShape, dtype);
        Tensor wg = floats(reference, gradOut, qShape), wm = mask(reference, mask, qShape, sk);
        MaterializedAttention materialized = new MaterializedAttention();
        AttentionResult forward = materialized.attention(wq, wk, wv, wm, causal, scale);
        AttentionGrads expected = materialized.attentionBackward(wg, wq, wk, wv, wm, causal, scale, forward.output(), forward.logsumexp());

        Tensor gq = half(cuda, q, qShape, dtype), gk = half(cuda, k, kShape, dtype), gv = half(cuda, v, kShape, dtype);
        Tensor out = floats(cuda, forward.output().toFloatArray(), qShape);
        Tensor lse = floats(cuda, forward.logsumexp().toFloatArray(), new int[] {batch, heads, sq});
        String suffix = "_d" + (d <= 64 ? 64 : 128) + (dtype == DType.BFLOAT16 ? "_bf16" : "_f16");
        List<String> kernels = List.of("attention_rowdot_f32", "attention_backward_kv_mma" + suffix, "attention_backward_q_mma" + suffix);
        long before = driver.launches();
        long[] each = kernels.stream().mapToLong(driver::launches).toArray();
        AttentionGrads actual = cuda.fused(AttentionKernels.FAMILY).attentionBackward(floats(cuda, gradOut, qShape), gq, gk, gv,
                mask(cuda, mask, qShape, sk), causal, scale, out, lse);
        assertEquals(before + kernels.size(), driver.launches(), what + ": three launches, no widening casts");
        for (int i = 0; i < kernels.size(); i++) {
            assertEquals(each[i] + 1, driver.launches(kernels.get(i)), what + ": the row dots and the tensor-core kernels ran");
        }

        Bounds bounds = new Bounds(wq.toFloatArray(), wk.toFloatArray(), wv.toFloatArray(), gradOut, mask, qShape, sk, causal,
                scale, dtype == DType.BFLOAT16 ? 0x1p-8 : 0x1p-11);
        assertClose(expected.dq(), actual.dq(), bounds.dq, what + ": dq");
        assertClose(expected.dk(), actual.dk(), bounds.dk, what + ": dk");
        assertClose(expected.dv(), actual.dv(), bounds.dv, what + ": dv");
    }

    /**
     * The bounds of the class comment, per element of dq (batch, heads, sq, d) and of dk and dv
     * (batch, kvHeads, sk, d), from P and dS recomputed in double on the rounded inputs.
     */
    private static final class Bounds {
        final double[] dq, dk, dv;

        Bounds(float[] q, float[] k, float[] v, float[] dO, float[] mask, int[] qShape, int sk, boolean causal, double scale, double u) {
            int batch = qShape[0], heads = qShape[1], sq = qShape[2], d = qShape[3], kvHeads = k.length / (batch * sk * d);
            dq = new double[q.length];
            dk = new double[k.length];
            dv = new double[v.length];
            double[] p = new double[sk], ds = new double[sk], a = new double[sk];
            for (int b = 0; b < batch; b++) {
                for (int h = 0; h < heads; h++) {
                    int kv = (b * kvHeads + h / (heads / kvHeads)) * sk * d;
                    for (int i = 0; i < sq; i++) {
                        int qi = ((b * heads + h) * sq + i) * d;
                        probabilities(q, qi, k, kv, mask, (b * sq + i) * sk, i, sq, sk, d, causal, scale, p);
                        double rowDot = 0;
                        for (int j = 0; j < sk; j++) {
                            double dp = 0;
                            a[j] = 0;
                            for (int x = 0; x < d; x++) {
                                dp += (double) dO[qi + x] * v[kv + j * d + x];
                                a[j] += Math.abs((double) dO[qi + x] * v[kv + j * d + x]);
                            }
                            ds[j] = dp;
                            rowDot += p[j] * dp;
                        }
                        for (int j = 0; j < sk; j++) {
                            ds[j] = p[j] * (ds[j] - rowDot);
                            double e = SECOND_ORDER * u * (p[j] * a[j] + Math.abs(ds[j]));
                            for (int x = 0; x < d; x++) {
                                dv[kv + j * d + x] += SECOND_ORDER * 2 * u * p[j] * Math.abs(dO[qi + x]);
                                dk[kv + j * d + x] += scale * e * Math.abs(q[qi + x]);
                                dq[qi + x] += scale * e * Math.abs(k[kv + j * d + x]);
                            }
                        }
                    }
                }
            }
        }

        /** softmax over the keys of query i's scores (zeros for a row with no visible key) into p. */
        private static void probabilities(float[] q, int qi, float[] k, int kv, float[] mask, int maskRow, int i, int sq, int sk,
                                          int d, boolean causal, double scale, double[] p) {
            double max = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < sk; j++) {
                double s = 0;
                for (int x = 0; x < d; x++) s += (double) q[qi + x] * k[kv + j * d + x];
                s = s * scale + (mask == null ? 0 : mask[maskRow + j]);
                p[j] = causal && j > i + (sk - sq) ? Double.NEGATIVE_INFINITY : s;
                max = Math.max(max, p[j]);
            }
            double sum = 0;
            for (int j = 0; j < sk; j++) {
                p[j] = max == Double.NEGATIVE_INFINITY ? 0 : Math.exp(p[j] - max);
                sum += p[j];
            }
            for (int j = 0; j < sk; j++) p[j] = sum == 0 ? 0 : p[j] / sum;
        }
    }

    private static Tensor floats(Backend be, float[] data, int[] shape) {
        return new Tensor(be.upload(DType.FLOAT32, data), Layout.contiguous(shape));
    }

    /** Within the element's bound plus the float32 relative tolerance. */
    private static void assertClose(Tensor expected, Tensor actual, double[] bound, String what) {
        assertEquals(Arrays.toString(expected.shape()), Arrays.toString(actual.shape()), what + ": shape");
        float[] e = expected.toFloatArray(), a = actual.toFloatArray();
        for (int i = 0; i < e.length; i++) {
            if (Math.abs(e[i] - a[i]) > bound[i] + FLOAT32 * (1 + Math.abs(e[i]))) {
                fail(what + ": element " + i + " is " + a[i] + ", expected " + e[i] + " within " + bound[i]);
            }
        }
    }
}
