package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.norm.NormKernels.NormGrads;
import dev.symbiont.core.fused.norm.NormKernels.NormResult;
import org.junit.jupiter.api.Test;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.SIZES;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.norm;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.tensor;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The fused layer norm and RMS norm kernels, forward and backward, against the norm family's reference. */
class CpuNormsTest {

    private static final double RTOL = 2e-5;
    private static final double EPS = 1e-5;

    /** Inputs of one case, uploaded to a backend. */
    private record Case(float[] x, Layout xLayout, float[] w, float[] b, float[] g, int rows, int cols) {
        Tensor x(Backend be) { return tensor(be, x, xLayout); }
        Tensor w(Backend be) { return w == null ? null : tensor(be, w, Layout.contiguous(cols)); }
        Tensor b(Backend be) { return b == null ? null : tensor(be, b, Layout.contiguous(cols)); }
        Tensor g(Backend be) { return tensor(be, g, Layout.contiguous(rows, cols)); }
    }

    private static Case randomCase(long seed, int rows, int cols, boolean weight, boolean bias, Layout xLayout, int xSize) {
        float[] x = random(seed, xSize, 3f);
        for (int i = 0; i < x.length; i++) x[i] += 1.5f; // a non-zero mean
        return new Case(x, xLayout, weight ? random(seed + 1, cols, 2f) : null, bias ? random(seed + 2, cols, 1f) : null,
                random(seed + 3, rows * cols, 1f), rows, cols);
    }

    /** expected and actual agree to RTOL and atol, or are both null (an absent parameter's gradient). */
    static void compare(String what, Tensor expected, Tensor actual, double atol) {
        if (expected == null) {
            assertNull(actual, what);
            return;
        }
        assertClose(what, read(expected), read(actual), RTOL, atol);
    }

    private static void compareLayerNorm(Case c) {
        String tag = c.rows + "x" + c.cols + (c.w != null ? " weight" : "") + (c.b != null ? " bias" : "") + " " + c.xLayout;
        NormResult r = norm(REF).layerNorm(c.x(REF), c.w(REF), c.b(REF), EPS);
        NormResult k = norm(CPU).layerNorm(c.x(CPU), c.w(CPU), c.b(CPU), EPS);
        compare("layer_norm y " + tag, r.output(), k.output(), 1e-5);
        compare("layer_norm mean " + tag, r.mean(), k.mean(), 1e-6);
        compare("layer_norm rstd " + tag, r.rstd(), k.rstd(), 0);
        NormGrads gr = norm(REF).layerNormBackward(c.g(REF), c.x(REF), c.w(REF), c.b(REF), r.mean(), r.rstd());
        NormGrads gk = norm(CPU).layerNormBackward(c.g(CPU), c.x(CPU), c.w(CPU), c.b(CPU), k.mean(), k.rstd());
        compare("layer_norm dx " + tag, gr.input(), gk.input(), 1e-5);
        compare("layer_norm dw " + tag, gr.weight(), gk.weight(), 1e-5 * Math.sqrt(c.rows));
        compare("layer_norm db " + tag, gr.bias(), gk.bias(), 1e-5 * Math.sqrt(c.rows));
    }

    private static void compareRmsNorm(Case c) {
        String tag = c.rows + "x" + c.cols + (c.w != null ? " weight" : "") + " " + c.xLayout;
        NormResult r = norm(REF).rmsNorm(c.x(REF), c.w(REF), EPS);
        NormResult k = norm(CPU).rmsNorm(c.x(CPU), c.w(CPU), EPS);
        compare("rms_norm y " + tag, r.output(), k.output(), 1e-5);
        assertNull(k.mean(), "rms_norm has no mean");
        compare("rms_norm rstd " + tag, r.rstd(), k.rstd(), 0);
        NormGrads gr = norm(REF).rmsNormBackward(c.g(REF), c.x(REF), c.w(REF), r.rstd());
        NormGrads gk = norm(CPU).rmsNormBackward(c.g(CPU), c.x(CPU), c.w(CPU), k.rstd());
        compare("rms_norm dx " + tag, gr.input(), gk.input(), 1e-5);
        compare("rms_norm dw " + tag, gr.weight(), gk.weight(), 1e-5 * Math.sqrt(c.rows));
        assertNull(gk.bias(), "rms_norm has no bias gradient");
    }

    @Test
    void layerNormMatchesDefaultsOnAwkwardSizesWithAndWithoutParameters() {
        for (int cols : SIZES) {
            int rows = cols >= 4098 ? 2 : 9;
            for (int p = 0; p < 4; p++) {
                boolean w = (p & 1) != 0, b = (p & 2) != 0;
                compareLayerNorm(randomCase(cols * 10L + p, rows, cols, w, b, Layout.contiguous(rows, cols), rows * cols));
            }
        }
    }

    @Test
    void rmsNormMatchesDefaultsOnAwkwardSizesWithAndWithoutWeight() {
        for (int cols : SIZES) {
            int rows = cols >= 4098 ? 2 : 9;
            for (boolean w : new boolean[] {false, true}) {
                compareRmsNorm(randomCase(cols * 10L + (w ? 1 : 0), rows, cols, w, false, Layout.contiguous(rows, cols), rows * cols));
            }
        }
    }

    @Test
    void normsMatchDefaultsWhenManyRowsRunInParallel() {
        int rows = 1_000, cols = 96; // 96,000 elements: several chunks, each with its own weight-gradient partials
        compareLayerNorm(randomCase(1, rows, cols, true, true, Layout.contiguous(rows, cols), rows * cols));
        compareRmsNorm(randomCase(2, rows, cols, true, false, Layout.contiguous(rows, cols), rows * cols));
    }

    @Test
    void normsMatchDefaultsOnStridedAndTransposedInputs() {
        int rows = 13, cols = 31;
        Layout strided = new Layout(new int[] {rows, cols}, new int[] {cols + 5, 1}, 2);   // narrowed columns
        Layout transposed = new Layout(new int[] {rows, cols}, new int[] {1, rows}, 0);   // copied first
        for (Layout l : new Layout[] {strided, transposed}) {
            int size = l.maxIndex() + 1;
            compareLayerNorm(randomCase(7, rows, cols, true, true, l, size));
            compareRmsNorm(randomCase(8, rows, cols, true, false, l, size));
        }
    }

    @Test
    void gradientsAcceptABroadcastUpstreamGradient() {
        int rows = 7, cols = 13;
        Case c = randomCase(9, rows, cols, true, true, Layout.contiguous(rows, cols), rows * cols);
        Layout ones = new Layout(new int[] {rows, cols}, new int[] {0, 0}, 0); // like sum().backward()
        NormResult r = norm(REF).layerNorm(c.x(REF), c.w(REF), c.b(REF), EPS);
        NormResult k = norm(CPU).layerNorm(c.x(CPU), c.w(CPU), c.b(CPU), EPS);
        NormGrads gr = norm(REF).layerNormBackward(tensor(REF, new float[] {1f}, ones), c.x(REF), c.w(REF), c.b(REF), r.mean(), r.rstd());
        NormGrads gk = norm(CPU).layerNormBackward(tensor(CPU, new float[] {1f}, ones), c.x(CPU), c.w(CPU), c.b(CPU), k.mean(), k.rstd());
        compare("dx", gr.input(), gk.input(), 1e-5);
        compare("dw", gr.weight(), gk.weight(), 1e-5);
        compare("db", gr.bias(), gk.bias(), 1e-5);
    }
}
