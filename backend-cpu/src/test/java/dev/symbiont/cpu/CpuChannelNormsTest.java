package dev.symbiont.cpu;

import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.norm.NormKernels.BatchNormResult;
import dev.symbiont.core.fused.norm.NormKernels.NormGrads;
import dev.symbiont.core.fused.norm.NormKernels.NormResult;
import org.junit.jupiter.api.Test;

import static dev.symbiont.cpu.Differential.CPU;
import static dev.symbiont.cpu.Differential.REF;
import static dev.symbiont.cpu.Differential.assertClose;
import static dev.symbiont.cpu.Differential.norm;
import static dev.symbiont.cpu.Differential.positive;
import static dev.symbiont.cpu.Differential.random;
import static dev.symbiont.cpu.Differential.read;
import static dev.symbiont.cpu.Differential.tensor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The fused batch norm, group norm and layer norm over C (LayerNorm2d) kernels of (N, C, L), forward and backward, against the norm family's reference. */
class CpuChannelNormsTest {
    private static final double EPS = 1e-5;

    /** Inputs of one case, uploaded to a backend: x in the given layout of (n, c, l), parameters (c), gradient contiguous. */
    private record Case(float[] x, Layout xLayout, float[] w, float[] b, float[] g, int n, int c, int l) {
        Tensor x(Backend be) { return tensor(be, x, xLayout); }
        Tensor w(Backend be) { return w == null ? null : tensor(be, w, Layout.contiguous(c)); }
        Tensor b(Backend be) { return b == null ? null : tensor(be, b, Layout.contiguous(c)); }
        Tensor g(Backend be) { return tensor(be, g, Layout.contiguous(n, c, l)); }

        String tag() { return n + "x" + c + "x" + l + (w != null ? " weight" : "") + (b != null ? " bias" : "") + " " + xLayout; }
    }

    private static Case randomCase(long seed, int n, int c, int l, boolean affine, Layout layout) {
        float[] x = random(seed, layout.maxIndex() + 1, 3f);
        for (int i = 0; i < x.length; i++) x[i] += 1.5f; // a non-zero mean
        return new Case(x, layout, affine ? random(seed + 1, c, 2f) : null, affine ? random(seed + 2, c, 1f) : null,
                random(seed + 3, n * c * l, 1f), n, c, l);
    }

    private static Case contiguous(long seed, int n, int c, int l, boolean affine) {
        return randomCase(seed, n, c, l, affine, Layout.contiguous(n, c, l));
    }

    /** Sums over m values: the tolerance of a weight or bias gradient grows with their square root. */
    private static void compare(String what, Tensor expected, Tensor actual, double atol) {
        if (expected == null) {
            assertNull(actual, what);
            return;
        }
        assertClose(what, read(expected), read(actual), 1e-4, atol);
    }

    /** Fallbacks of the channel-norm kernels so far: a kernel that ran the reference would compare equal trivially. */
    private static long fallbacks() {
        return Fallbacks.count("batch_norm") + Fallbacks.count("batch_norm backward")
                + Fallbacks.count("group_norm") + Fallbacks.count("group_norm backward")
                + Fallbacks.count("layer_norm2d") + Fallbacks.count("layer_norm2d backward");
    }

    private static void compareBatchNorm(Case k) {
        long before = fallbacks();
        compareBatchNormKernels(k);
        assertEquals(before, fallbacks(), "the CPU kernels ran for " + k.tag());
    }

    private static void compareGroupNorm(Case k, int groups) {
        long before = fallbacks();
        compareGroupNormKernels(k, groups);
        assertEquals(before, fallbacks(), "the CPU kernels ran for " + k.tag());
    }

    private static void compareBatchNormKernels(Case k) {
        String tag = k.tag();
        double sumTol = 1e-5 * Math.sqrt((double) k.n * k.l);
        BatchNormResult r = norm(REF).batchNorm(k.x(REF), k.w(REF), k.b(REF), EPS);
        BatchNormResult f = norm(CPU).batchNorm(k.x(CPU), k.w(CPU), k.b(CPU), EPS);
        compare("batch_norm y " + tag, r.output(), f.output(), 1e-4);
        compare("batch_norm mean " + tag, r.mean(), f.mean(), 1e-5);
        compare("batch_norm var " + tag, r.var(), f.var(), 1e-5);
        compare("batch_norm rstd " + tag, r.rstd(), f.rstd(), 1e-5);
        for (boolean training : new boolean[] {true, false}) {
            String mode = (training ? " training " : " eval ") + tag;
            NormGrads gr = norm(REF).batchNormBackward(k.g(REF), k.x(REF), k.w(REF), k.b(REF), r.mean(), r.rstd(), training);
            NormGrads gf = norm(CPU).batchNormBackward(k.g(CPU), k.x(CPU), k.w(CPU), k.b(CPU), f.mean(), f.rstd(), training);
            compare("batch_norm dx" + mode, gr.input(), gf.input(), 1e-4);
            compare("batch_norm dw" + mode, gr.weight(), gf.weight(), sumTol);
            compare("batch_norm db" + mode, gr.bias(), gf.bias(), sumTol);
        }
        Tensor mean = tensor(REF, random(5, k.c, 1f), Layout.contiguous(k.c)), rstd = tensor(REF, positive(6, k.c), Layout.contiguous(k.c));
        Tensor meanCpu = tensor(CPU, read(mean), Layout.contiguous(k.c)), rstdCpu = tensor(CPU, read(rstd), Layout.contiguous(k.c));
        compare("batch_norm eval y " + tag, norm(REF).batchNormEval(k.x(REF), mean, rstd, k.w(REF), k.b(REF)),
                norm(CPU).batchNormEval(k.x(CPU), meanCpu, rstdCpu, k.w(CPU), k.b(CPU)), 1e-4);
    }

    private static void compareGroupNormKernels(Case k, int groups) {
        String tag = k.tag() + " groups " + groups;
        double sumTol = 1e-5 * Math.sqrt((double) k.n * k.l);
        NormResult r = norm(REF).groupNorm(k.x(REF), groups, k.w(REF), k.b(REF), EPS);
        NormResult f = norm(CPU).groupNorm(k.x(CPU), groups, k.w(CPU), k.b(CPU), EPS);
        compare("group_norm y " + tag, r.output(), f.output(), 1e-4);
        compare("group_norm mean " + tag, r.mean(), f.mean(), 1e-5);
        compare("group_norm rstd " + tag, r.rstd(), f.rstd(), 1e-5);
        NormGrads gr = norm(REF).groupNormBackward(k.g(REF), k.x(REF), groups, k.w(REF), k.b(REF), r.mean(), r.rstd());
        NormGrads gf = norm(CPU).groupNormBackward(k.g(CPU), k.x(CPU), groups, k.w(CPU), k.b(CPU), f.mean(), f.rstd());
        compare("group_norm dx " + tag, gr.input(), gf.input(), 1e-4);
        compare("group_norm dw " + tag, gr.weight(), gf.weight(), sumTol);
        compare("group_norm db " + tag, gr.bias(), gf.bias(), sumTol);
    }

    private static void compareLayerNorm2d(Case k) {
        long before = fallbacks();
        String tag = k.tag();
        double sumTol = 1e-5 * Math.sqrt((double) k.n * k.l);
        NormResult r = norm(REF).layerNorm2d(k.x(REF), k.w(REF), k.b(REF), 1e-6);
        NormResult f = norm(CPU).layerNorm2d(k.x(CPU), k.w(CPU), k.b(CPU), 1e-6);
        compare("layer_norm2d y " + tag, r.output(), f.output(), 1e-4);
        compare("layer_norm2d mean " + tag, r.mean(), f.mean(), 1e-5);
        compare("layer_norm2d rstd " + tag, r.rstd(), f.rstd(), 1e-5);
        NormGrads gr = norm(REF).layerNorm2dBackward(k.g(REF), k.x(REF), k.w(REF), k.b(REF), r.mean(), r.rstd());
        NormGrads gf = norm(CPU).layerNorm2dBackward(k.g(CPU), k.x(CPU), k.w(CPU), k.b(CPU), f.mean(), f.rstd());
        compare("layer_norm2d dx " + tag, gr.input(), gf.input(), 1e-4);
        compare("layer_norm2d dw " + tag, gr.weight(), gf.weight(), sumTol);
        compare("layer_norm2d db " + tag, gr.bias(), gf.bias(), sumTol);
        assertEquals(before, fallbacks(), "the CPU kernels ran for " + tag);
    }

    @Test
    void layerNorm2dMatchesReferenceOnAwkwardSizesBlocksAndWithoutParameters() {
        compareLayerNorm2d(contiguous(41, 2, 7, 13, true));
        compareLayerNorm2d(contiguous(42, 1, 1, 5, true));                                    // one channel: x̂ = 0
        compareLayerNorm2d(contiguous(43, 3, 5, 1, false));                                   // (N, C) input
        compareLayerNorm2d(contiguous(44, 2, 3, 257, true));                                  // a block of 256 and one of 1
        compareLayerNorm2d(contiguous(45, 4, 64, 300, true));                                 // 76,800 elements: tasks in parallel
    }

    @Test
    void layerNorm2dMatchesReferenceOnChannelsLastAndNarrowedInputs() {
        int n = 3, c = 4, l = 9;
        Layout channelsLast = new Layout(new int[] {n, c, l}, new int[] {c * l, 1, c}, 0);
        Layout narrowed = new Layout(new int[] {n, c, l}, new int[] {c * (l + 3), l + 3, 1}, 2);
        for (Layout layout : new Layout[] {channelsLast, narrowed}) compareLayerNorm2d(randomCase(46, n, c, l, true, layout));
    }

    @Test
    void batchNormMatchesReferenceOnAwkwardSpatialSizesWithAndWithoutParameters() {
        for (int l : new int[] {1, 7, 13, 31, 207, 4098}) {
            for (boolean affine : new boolean[] {false, true}) compareBatchNorm(contiguous(l * 2L + (affine ? 1 : 0), 3, 5, l, affine));
        }
    }

    @Test
    void batchNormMatchesReferenceForBatchOneAndManyChannelsInParallel() {
        compareBatchNorm(contiguous(11, 1, 3, 49, true));
        compareBatchNorm(contiguous(12, 4, 64, 300, true)); // 76,800 elements: channels split over the pool
    }

    @Test
    void groupNormMatchesReferenceOnAwkwardSizesAndGroupings() {
        compareGroupNorm(contiguous(21, 2, 6, 13, true), 3);
        compareGroupNorm(contiguous(22, 3, 6, 7, false), 1);
        compareGroupNorm(contiguous(23, 1, 5, 31, true), 5);
        compareGroupNorm(contiguous(24, 2, 4, 1, true), 2);
        compareGroupNorm(contiguous(25, 8, 32, 300, true), 8); // 76,800 elements: (n, group) tasks in parallel
    }

    @Test
    void channelNormsMatchReferenceOnPermutedAndStridedInputs() {
        int n = 3, c = 4, l = 9;
        Layout channelsLast = new Layout(new int[] {n, c, l}, new int[] {c * l, 1, c}, 0); // copied first
        Layout narrowed = new Layout(new int[] {n, c, l}, new int[] {c * (l + 3), l + 3, 1}, 2); // rows read in place
        for (Layout layout : new Layout[] {channelsLast, narrowed}) {
            compareBatchNorm(randomCase(31, n, c, l, true, layout));
            compareGroupNorm(randomCase(32, n, c, l, true, layout), 2);
        }
    }
}
