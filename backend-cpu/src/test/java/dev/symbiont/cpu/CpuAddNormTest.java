package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.norm.NormKernels.AddNormResult;
import dev.symbiont.core.fused.norm.NormKernels.NormGrads;
import dev.symbiont.core.fused.norm.NormKernels.NormResult;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.SIZES;
import static dev.symbiont.cpu.CpuNormsTest.compare;
import static dev.symbiont.cpu.Differential.norm;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.tensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The fused residual add + layer norm and + RMS norm kernels, forward and backward, against the reference and the unfused CPU kernels. */
class CpuAddNormTest {
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

    /** Which norm the residual add is fused with. */
    enum Kind { LAYER_NORM, RMS_NORM }

    private static AddNormResult forward(Backend be, Kind kind, Case c) {
        return kind == Kind.LAYER_NORM ? norm(be).addLayerNorm(c.x(be), c.r(be), c.w(be), c.b(be), EPS)
                : norm(be).addRmsNorm(c.x(be), c.r(be), c.w(be), EPS);
    }

    private static NormGrads backward(Backend be, Kind kind, Case c, AddNormResult f) {
        return kind == Kind.LAYER_NORM
                ? norm(be).addLayerNormBackward(c.gy(be), c.gs(be), f.sum(), c.w(be), c.b(be), f.mean(), f.rstd())
                : norm(be).addRmsNormBackward(c.gy(be), c.gs(be), f.sum(), c.w(be), f.rstd());
    }

    /** The case without its bias, for RMS norm, which has none. */
    private static Case forKind(Kind kind, Case c) {
        return kind == Kind.LAYER_NORM ? c : new Case(c.x, c.xLayout, c.r, c.w, null, c.gy, c.gs, c.rows, c.cols);
    }

    private static void compareWithReference(Kind kind, Case c) {
        c = forKind(kind, c);
        String tag = kind + " " + c.rows + "x" + c.cols + (c.w != null ? " affine" : "") + (c.gs != null ? " gradSum" : "") + " " + c.xLayout;
        AddNormResult r = forward(REF, kind, c), k = forward(CPU, kind, c);
        compare("sum " + tag, r.sum(), k.sum(), 0);
        compare("y " + tag, r.output(), k.output(), 1e-5);
        compare("mean " + tag, r.mean(), k.mean(), 1e-6);
        compare("rstd " + tag, r.rstd(), k.rstd(), 0);
        NormGrads gr = backward(REF, kind, c, r), gk = backward(CPU, kind, c, k);
        compare("ds " + tag, gr.input(), gk.input(), 1e-5);
        compare("dw " + tag, gr.weight(), gk.weight(), 1e-5 * Math.sqrt(c.rows));
        compare("db " + tag, gr.bias(), gk.bias(), 1e-5 * Math.sqrt(c.rows));
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void matchesReferenceOnAwkwardSizesWithAndWithoutParametersAndSumGradient(Kind kind) {
        for (int cols : SIZES) {
            int rows = cols >= 4098 ? 2 : 9;
            for (int p = 0; p < 4; p++) {
                compareWithReference(kind, randomCase(cols * 10L + p, rows, cols, (p & 1) != 0, (p & 2) != 0, Layout.contiguous(rows, cols)));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void matchesReferenceOnAStridedInputAndManyRowsInParallel(Kind kind) {
        compareWithReference(kind, randomCase(7, 13, 31, true, true, new Layout(new int[] {13, 31}, new int[] {36, 1}, 2)));
        compareWithReference(kind, randomCase(8, 13, 31, true, true, new Layout(new int[] {13, 31}, new int[] {1, 13}, 0)));
        compareWithReference(kind, randomCase(9, 1_000, 96, true, true, Layout.contiguous(1_000, 96)));
    }

    /** What a training step computed before the fusion: the CPU add, the norm kernel, the gradient sum. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void givesTheUnfusedCpuKernelsResultsToTheBit(Kind kind) {
        int rows = 64, cols = 128;
        Case c = forKind(kind, randomCase(11, rows, cols, true, true, Layout.contiguous(rows, cols)));
        Tensor s = c.x(CPU).add(c.r(CPU));
        NormResult n = kind == Kind.LAYER_NORM ? norm(CPU).layerNorm(s, c.w(CPU), c.b(CPU), EPS) : norm(CPU).rmsNorm(s, c.w(CPU), EPS);
        AddNormResult fused = forward(CPU, kind, c);
        assertArrayEquals(read(s), read(fused.sum()), 0f);
        assertArrayEquals(read(n.output()), read(fused.output()), 0f);
        NormGrads ng = kind == Kind.LAYER_NORM
                ? norm(CPU).layerNormBackward(c.gy(CPU), s, c.w(CPU), c.b(CPU), n.mean(), n.rstd())
                : norm(CPU).rmsNormBackward(c.gy(CPU), s, c.w(CPU), n.rstd());
        NormGrads fg = backward(CPU, kind, c, fused);
        assertArrayEquals(read(c.gs(CPU).add(ng.input())), read(fg.input()), 0f);
        assertArrayEquals(read(ng.weight()), read(fg.weight()), 0f);
        if (kind == Kind.LAYER_NORM) assertArrayEquals(read(ng.bias()), read(fg.bias()), 0f);
        else assertNull(fg.bias(), "RMS norm has no bias gradient");
    }
}
