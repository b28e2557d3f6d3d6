package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.norm.NormKernels.AddNormResult;
import dev.symbiont.core.fused.norm.NormKernels.NormGrads;
import dev.symbiont.core.fused.norm.NormKernels.NormResult;
import org.junit.jupiter.api.Test;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.SIZES;
import static dev.symbiont.cpu.CpuNormsTest.compare;
import static dev.symbiont.cpu.Differential.norm;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.tensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

/** The fused residual add + layer norm kernel, forward and backward, against the reference and the unfused CPU kernels. */
class CpuAddLayerNormTest {
    private static final double EPS = 1e-5;

    /** x, residual, weight, bias (null where absent), the norm's and the sum's upstream gradients. */
    private record Case(float[] x, Layout xLayout, float[] r, float[] w, float[] b, float[] gy, float[] gs, int rows, int cols) {
        Tensor x(Backend be) { return tensor(be, x, xLayout); }
        Tensor r(Backend be) { return tensor(be, r, Layout.contiguous(rows, cols)); }
        Tensor w(Backend be) { return w == null ? null : tensor(be, w, Layout.contiguous(cols)); }
        Tensor b(Backend be) { return b == null ? null : tensor(be, b, Layout.contiguous(cols)); }
        Tensor gy(Backend be) { return tensor(be, gy, Layout.contiguous(rows, cols)); }
        Tensor gs(Backend be) { return gs == null ? null : tensor(be, gs, Layout.contiguous(rows, cols)); }
    }

    private static Case randomCase(long seed, int rows, int cols, boolean params, boolean gradSum, Layout xLayout) {
        float[] x = random(seed, xLayout.maxIndex() + 1, 3f);
        for (int i = 0; i < x.length; i++) x[i] += 1.5f; // a non-zero mean
        return new Case(x, xLayout, random(seed + 1, rows * cols, 1f), params ? random(seed + 2, cols, 2f) : null,
                params ? random(seed + 3, cols, 1f) : null, random(seed + 4, rows * cols, 1f),
                gradSum ? random(seed + 5, rows * cols, 1f) : null, rows, cols);
    }

    private static void compareWithReference(Case c) {
        String tag = c.rows + "x" + c.cols + (c.w != null ? " affine" : "") + (c.gs != null ? " gradSum" : "") + " " + c.xLayout;
        AddNormResult r = norm(REF).addLayerNorm(c.x(REF), c.r(REF), c.w(REF), c.b(REF), EPS);
        AddNormResult k = norm(CPU).addLayerNorm(c.x(CPU), c.r(CPU), c.w(CPU), c.b(CPU), EPS);
        compare("sum " + tag, r.sum(), k.sum(), 0);
        compare("y " + tag, r.output(), k.output(), 1e-5);
        compare("mean " + tag, r.mean(), k.mean(), 1e-6);
        NormGrads gr = norm(REF).addLayerNormBackward(c.gy(REF), c.gs(REF), r.sum(), c.w(REF), c.b(REF), r.mean(), r.rstd());
        NormGrads gk = norm(CPU).addLayerNormBackward(c.gy(CPU), c.gs(CPU), k.sum(), c.w(CPU), c.b(CPU), k.mean(), k.rstd());
        compare("ds " + tag, gr.input(), gk.input(), 1e-5);
        compare("dw " + tag, gr.weight(), gk.weight(), 1e-5 * Math.sqrt(c.rows));
        compare("db " + tag, gr.bias(), gk.bias(), 1e-5 * Math.sqrt(c.rows));
    }

    @Test
    void matchesReferenceOnAwkwardSizesWithAndWithoutParametersAndSumGradient() {
        for (int cols : SIZES) {
            int rows = cols >= 4098 ? 2 : 9;
            for (int p = 0; p < 4; p++) {
                compareWithReference(randomCase(cols * 10L + p, rows, cols, (p & 1) != 0, (p & 2) != 0, Layout.contiguous(rows, cols)));
            }
        }
    }

    @Test
    void matchesReferenceOnAStridedInputAndManyRowsInParallel() {
        compareWithReference(randomCase(7, 13, 31, true, true, new Layout(new int[] {13, 31}, new int[] {36, 1}, 2)));
        compareWithReference(randomCase(8, 13, 31, true, true, new Layout(new int[] {13, 31}, new int[] {1, 13}, 0)));
        compareWithReference(randomCase(9, 1_000, 96, true, true, Layout.contiguous(1_000, 96)));
    }

    /** What a training step computed before the fusion: the CPU add, the layer norm kernel, the gradient sum. */
    @Test
    void givesTheUnfusedCpuKernelsResultsToTheBit() {
        int rows = 64, cols = 128;
        Case c = randomCase(11, rows, cols, true, true, Layout.contiguous(rows, cols));
        Tensor s = c.x(CPU).add(c.r(CPU));
        NormResult ln = norm(CPU).layerNorm(s, c.w(CPU), c.b(CPU), EPS);
        AddNormResult fused = norm(CPU).addLayerNorm(c.x(CPU), c.r(CPU), c.w(CPU), c.b(CPU), EPS);
        assertArrayEquals(read(s), read(fused.sum()), 0f);
        assertArrayEquals(read(ln.output()), read(fused.output()), 0f);
        NormGrads lg = norm(CPU).layerNormBackward(c.gy(CPU), s, c.w(CPU), c.b(CPU), ln.mean(), ln.rstd());
        NormGrads fg = norm(CPU).addLayerNormBackward(c.gy(CPU), c.gs(CPU), fused.sum(), c.w(CPU), c.b(CPU), fused.mean(), fused.rstd());
        assertArrayEquals(read(c.gs(CPU).add(lg.input())), read(fg.input()), 0f);
        assertArrayEquals(read(lg.weight()), read(fg.weight()), 0f);
        assertArrayEquals(read(lg.bias()), read(fg.bias()), 0f);
    }
}
