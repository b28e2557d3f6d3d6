package dev.symbiont.core.fused.conv;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The reference convolutions ({@link ReferenceConv}) against direct loops in double
 * ({@link DirectLoops}), and their gradients against finite differences.
 */
class ConvTest {
    private final Generator gen = new Generator(11);

    private Tensor randn(int... shape) { return Tensor.randn(gen, shape); }

    static void assertClose(String what, double[] expected, float[] actual) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (!(Math.abs(expected[i] - actual[i]) <= 1e-4 * (1 + Math.abs(expected[i])))) {
                fail(what + ": element " + i + " is " + actual[i] + ", expected " + expected[i]);
            }
        }
    }

    @ParameterizedTest(name = "N{0} C{1} {2}x{3} O{4} k{5}x{6} s{7} p{8} d{9} g{10}")
    @CsvSource({
            "2, 3, 7, 6, 4, 3, 3, 1, 1, 1, 1",
            "1, 4, 9, 9, 6, 3, 2, 2, 1, 1, 2",
            "2, 4, 8, 7, 4, 3, 3, 1, 2, 2, 4",    // depthwise, dilated
            "1, 6, 5, 5, 3, 1, 1, 1, 0, 1, 1",    // 1×1
            "3, 2, 6, 11, 2, 2, 4, 3, 0, 1, 1",
            "1, 1, 3, 3, 1, 3, 3, 1, 0, 1, 1"})   // a single output cell
    void conv2dMatchesDirectLoops(int n, int c, int h, int w, int o, int kh, int kw, int s, int p, int d, int groups) {
        Tensor x = randn(n, c, h, w), weight = randn(o, c / groups, kh, kw), bias = randn(o);
        Tensor y = Convolutions.conv2d(x, weight, bias, new int[] {s}, new int[] {p}, new int[] {d}, groups);
        ConvGeometry g = ConvChecks.conv("conv2d", 2, x, weight, bias, new int[] {s}, new int[] {p}, new int[] {d}, groups);
        assertArrayEquals(g.outputShape(), y.shape());
        assertClose("conv2d", DirectLoops.conv2d(x.toFloatArray(), weight.toFloatArray(), bias.toFloatArray(), g), y.toFloatArray());
    }

    @ParameterizedTest(name = "kernel {0}x{1}, dilation {2}")
    @CsvSource({"3, 3, 1", "4, 2, 1", "2, 3, 2", "1, 1, 1"})
    void samePaddingKeepsTheSizeAndPutsTheOddCellAtTheEnd(int kh, int kw, int d) {
        Tensor x = randn(2, 3, 6, 7), weight = randn(5, 3, kh, kw);
        Tensor y = Convolutions.conv2d(x, weight, null, new int[] {1}, "same", new int[] {d}, 1);
        assertArrayEquals(new int[] {2, 5, 6, 7}, y.shape());
        // PyTorch: total padding d·(k − 1), floor half of it before
        ConvGeometry g = new ConvGeometry(2, 3, 6, 7, 5, kh, kw, 1, 1, d * (kh - 1) / 2, d * (kw - 1) / 2, d, d, 1, 6, 7);
        assertClose("conv2d same", DirectLoops.conv2d(x.toFloatArray(), weight.toFloatArray(), null, g), y.toFloatArray());
        Tensor valid = Convolutions.conv2d(x, weight, null, new int[] {1}, "valid", new int[] {d}, 1);
        assertArrayEquals(new int[] {2, 5, 6 - d * (kh - 1), 7 - d * (kw - 1)}, valid.shape());
    }

    @Test
    void conv2dWithPerDimensionStridePaddingAndDilation() {
        Tensor x = randn(1, 2, 9, 8), weight = randn(3, 2, 3, 2), bias = randn(3);
        Tensor y = Convolutions.conv2d(x, weight, bias, new int[] {2, 1}, new int[] {1, 0}, new int[] {1, 3}, 1);
        ConvGeometry g = new ConvGeometry(1, 2, 9, 8, 3, 3, 2, 2, 1, 1, 0, 1, 3, 1, 5, 5);
        assertArrayEquals(g.outputShape(), y.shape());
        assertClose("conv2d per dim", DirectLoops.conv2d(x.toFloatArray(), weight.toFloatArray(), bias.toFloatArray(), g),
                y.toFloatArray());
    }

    @Test
    void conv1dIsConv2dOverARowOfHeightOne() {
        Tensor x = randn(2, 4, 13), weight = randn(6, 2, 3), bias = randn(6);
        Tensor y = Convolutions.conv1d(x, weight, bias, 2, 1, 2, 2);
        ConvGeometry g = new ConvGeometry(2, 4, 1, 13, 6, 1, 3, 1, 2, 0, 1, 1, 2, 2, 1, 6);
        assertArrayEquals(new int[] {2, 6, 6}, y.shape());
        assertClose("conv1d", DirectLoops.conv2d(x.toFloatArray(), weight.toFloatArray(), bias.toFloatArray(), g), y.toFloatArray());
        Tensor same = Convolutions.conv1d(x, randn(4, 1, 4), null, 1, "same", 1, 4);
        assertArrayEquals(new int[] {2, 4, 13}, same.shape());
    }

    @Test
    void tensorMethodsCallTheSameOps() {
        Tensor x = randn(1, 2, 5, 5), weight = randn(2, 2, 3, 3);
        assertArrayEquals(Convolutions.conv2d(x, weight, null, 1, 1, 1, 1).toFloatArray(),
                x.conv2d(weight, null, 1, 1, 1, 1).toFloatArray());
        assertArrayEquals(Convolutions.conv2d(x, weight, null, 1, 1, 1, 1).toFloatArray(),
                x.conv2d(weight, null, "same").toFloatArray());
        assertArrayEquals(new int[] {1, 2, 3, 3}, x.maxPool2d(3, 2, 1).shape());
        assertArrayEquals(new int[] {1, 2, 2, 2}, x.avgPool2d(2, 2, 0).shape());
        assertArrayEquals(new int[] {1, 2, 1, 1}, x.adaptiveAvgPool2d(1, 1).shape());
        Tensor line = randn(1, 2, 9);
        assertArrayEquals(new int[] {1, 3, 7}, line.conv1d(randn(3, 2, 3), null, 1, 0, 1, 1).shape());
    }

    // ---- gradients ----------------------------------------------------------------------------

    @ParameterizedTest(name = "stride {0}, padding {1}, dilation {2}, groups {3}")
    @CsvSource({"1, 1, 1, 1", "2, 1, 1, 2", "1, 2, 2, 4", "2, 0, 1, 1"})
    void conv2dGradientsMatchFiniteDifferences(int s, int p, int d, int groups) {
        GradCheck.check("conv2d", in -> Convolutions.conv2d(in.get(0), in.get(1), in.get(2), s, p, d, groups),
                GradCheck.randn(gen, 0.5, 2, 4, 5, 6), GradCheck.randn(gen, 0.5, 4, 4 / groups, 3, 3),
                GradCheck.randn(gen, 0.5, 4));
    }

    @Test
    void conv2dSamePaddingWithAnEvenKernelHasCorrectGradients() {
        GradCheck.check("conv2d same", in -> Convolutions.conv2d(in.get(0), in.get(1), null, new int[] {1}, "same",
                        new int[] {1}, 1),
                GradCheck.randn(gen, 0.5, 1, 2, 5, 4), GradCheck.randn(gen, 0.5, 3, 2, 2, 4));
    }

    @Test
    void conv1dGradientsMatchFiniteDifferences() {
        GradCheck.check("conv1d", in -> Convolutions.conv1d(in.get(0), in.get(1), in.get(2), 2, 1, 1, 1),
                GradCheck.randn(gen, 0.5, 2, 3, 9), GradCheck.randn(gen, 0.5, 2, 3, 3), GradCheck.randn(gen, 0.5, 2));
    }

    @Test
    void onlyTheInputsThatNeedAGradientGetOne() {
        Tensor x = randn(1, 2, 4, 4), weight = randn(3, 2, 3, 3).requiresGrad(true), bias = randn(3);
        Convolutions.conv2d(x, weight, bias, 1, 1, 1, 1).sum().backward();
        assertEquals(null, x.grad());
        assertEquals(null, bias.grad());
        assertArrayEquals(new int[] {3, 2, 3, 3}, weight.grad().shape());
    }
}
