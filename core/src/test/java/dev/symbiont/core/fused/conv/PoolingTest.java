package dev.symbiont.core.fused.conv;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static dev.symbiont.core.fused.conv.ConvTest.assertClose;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The reference pools against direct loops in double, PyTorch's output sizes (ceil_mode,
 * divisors), and their gradients against finite differences.
 */
class PoolingTest {
    private final Generator gen = new Generator(12);

    private Tensor randn(int... shape) { return Tensor.randn(gen, shape); }

    @ParameterizedTest(name = "{0}x{1}, kernel {2}, stride {3}, padding {4}, dilation {5}, ceil {6}")
    @CsvSource({
            "8, 8, 2, 2, 0, 1, false",
            "7, 9, 3, 2, 1, 1, false",
            "7, 9, 3, 2, 1, 1, true",
            "10, 6, 3, 1, 1, 2, false",
            "5, 5, 2, 3, 1, 1, true",
            "1, 1, 1, 1, 0, 1, false"})
    void maxPoolMatchesDirectLoopsAndItsIndicesPointAtTheMaxima(int h, int w, int k, int s, int p, int d, boolean ceil) {
        Tensor x = randn(2, 3, h, w);
        ConvKernels.MaxPoolResult r = Pooling.maxPool2dWithIndices(x, new int[] {k}, new int[] {s}, new int[] {p},
                new int[] {d}, ceil);
        PoolGeometry g = ConvChecks.pool("max_pool2d", x, new int[] {k}, new int[] {s}, new int[] {p}, new int[] {d}, ceil);
        assertArrayEquals(g.outputShape(), r.output().shape());
        assertClose("max_pool2d", DirectLoops.pool(x.toFloatArray(), g, false, true), r.output().toFloatArray());
        float[] xs = x.toFloatArray(), ys = r.output().toFloatArray();
        long[] idx = r.indices().toLongArray();
        int cells = g.outH() * g.outW();
        for (int i = 0; i < idx.length; i++) assertEquals(ys[i], xs[(int) (i / cells * h * w + idx[i])], "index of output " + i);
    }

    @Test
    void poolOutputSizesFollowPyTorch() {
        Tensor x = randn(1, 1, 7, 7);
        // torch: max_pool2d(7×7, 2, 2, ceil_mode=True) gives 4×4; False gives 3×3
        assertArrayEquals(new int[] {1, 1, 4, 4}, Pooling.maxPool2d(x, new int[] {2}, null, new int[] {0}, new int[] {1}, true).shape());
        assertArrayEquals(new int[] {1, 1, 3, 3}, Pooling.maxPool2d(x, 2).shape());
        // ResNet's stem pool: 3, 2, 1 on 112 gives 56
        assertArrayEquals(new int[] {1, 1, 56, 56}, Pooling.maxPool2d(randn(1, 1, 112, 112), 3, 2, 1).shape());
        // ceil_mode drops a last window that would start in the trailing padding: 5, k 2, s 2, p 1 gives 3, not 4
        assertArrayEquals(new int[] {1, 1, 3, 3},
                Pooling.avgPool2d(randn(1, 1, 5, 5), new int[] {2}, new int[] {2}, new int[] {1}, true, true).shape());
    }

    @ParameterizedTest(name = "{0}x{1}, kernel {2}, stride {3}, padding {4}, ceil {5}, count_include_pad {6}")
    @CsvSource({
            "8, 8, 2, 2, 0, false, true",
            "7, 9, 3, 2, 1, false, true",
            "7, 9, 3, 2, 1, false, false",
            "7, 8, 3, 2, 1, true, true",
            "7, 8, 3, 2, 1, true, false",
            "5, 6, 4, 3, 2, true, true"})
    void avgPoolMatchesDirectLoops(int h, int w, int k, int s, int p, boolean ceil, boolean countPad) {
        Tensor x = randn(2, 2, h, w);
        Tensor y = Pooling.avgPool2d(x, new int[] {k}, new int[] {s}, new int[] {p}, ceil, countPad);
        PoolGeometry g = ConvChecks.pool("avg_pool2d", x, new int[] {k}, new int[] {s}, new int[] {p}, new int[] {1}, ceil);
        assertArrayEquals(g.outputShape(), y.shape());
        assertClose("avg_pool2d", DirectLoops.pool(x.toFloatArray(), g, true, countPad), y.toFloatArray());
    }

    @Test
    void avgPoolDivisorCountsPaddingOnlyWhenAsked() {
        Tensor ones = Tensor.ones(1, 1, 2, 2);
        // a 3×3 window at stride 2 with padding 1 over 2×2 ones: 4 cells of 9 with padding, all 4 without
        assertArrayEquals(new float[] {4f / 9}, Pooling.avgPool2d(ones, 3, 2, 1).toFloatArray(), 1e-6f);
        assertArrayEquals(new float[] {1f},
                Pooling.avgPool2d(ones, new int[] {3}, new int[] {2}, new int[] {1}, false, false).toFloatArray(), 1e-6f);
    }

    @ParameterizedTest(name = "{0}x{1} to {2}x{3}")
    @CsvSource({"7, 7, 1, 1", "7, 5, 3, 2", "4, 6, 4, 6", "5, 3, 7, 4", "10, 10, 3, 3"})
    void adaptiveAvgPoolMatchesPyTorchWindows(int h, int w, int oh, int ow) {
        Tensor x = randn(2, 3, h, w);
        Tensor y = Pooling.adaptiveAvgPool2d(x, oh, ow);
        assertArrayEquals(new int[] {2, 3, oh, ow}, y.shape());
        assertClose("adaptive_avg_pool2d", DirectLoops.adaptiveAvg(x.toFloatArray(), 6, h, w, oh, ow), y.toFloatArray());
    }

    @Test
    void adaptiveWindowsAreTorchs() {
        // torch: 7 → 3 windows [0, 3), [2, 5), [4, 7)
        assertArrayEquals(new int[] {0, 2, 4}, new int[] {PoolGeometry.adaptiveStart(0, 7, 3),
                PoolGeometry.adaptiveStart(1, 7, 3), PoolGeometry.adaptiveStart(2, 7, 3)});
        assertArrayEquals(new int[] {3, 5, 7}, new int[] {PoolGeometry.adaptiveEnd(0, 7, 3),
                PoolGeometry.adaptiveEnd(1, 7, 3), PoolGeometry.adaptiveEnd(2, 7, 3)});
    }

    // ---- gradients ----------------------------------------------------------------------------

    @ParameterizedTest(name = "kernel {0}, stride {1}, padding {2}, dilation {3}, ceil {4}")
    @CsvSource({"2, 2, 0, 1, false", "3, 2, 1, 1, true", "3, 1, 1, 2, false"})
    void maxPoolGradientsMatchFiniteDifferences(int k, int s, int p, int d, boolean ceil) {
        GradCheck.check("max_pool2d", in -> Pooling.maxPool2d(in.get(0), new int[] {k}, new int[] {s}, new int[] {p},
                new int[] {d}, ceil), GradCheck.distinct(gen, 2, 2, 7, 6));
    }

    @ParameterizedTest(name = "kernel {0}, stride {1}, padding {2}, ceil {3}, count_include_pad {4}")
    @CsvSource({"2, 2, 0, false, true", "3, 2, 1, true, false", "3, 2, 1, true, true", "3, 1, 1, false, false"})
    void avgPoolGradientsMatchFiniteDifferences(int k, int s, int p, boolean ceil, boolean countPad) {
        GradCheck.check("avg_pool2d", in -> Pooling.avgPool2d(in.get(0), new int[] {k}, new int[] {s}, new int[] {p},
                ceil, countPad), GradCheck.randn(gen, 1, 2, 2, 7, 6));
    }

    @Test
    void adaptiveAvgPoolGradientsMatchFiniteDifferences() {
        GradCheck.check("adaptive_avg_pool2d", in -> Pooling.adaptiveAvgPool2d(in.get(0), 3, 2),
                GradCheck.randn(gen, 1, 2, 2, 7, 5));
    }
}
