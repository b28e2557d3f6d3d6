package dev.symbiont.core.fused.conv;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * conv2d, conv1d and the pools, forward and every gradient, against the reference: strides,
 * paddings incl. "same", dilations, groups incl. depthwise, 1×1 kernels, batch 1, odd sizes,
 * and inputs seen through channels-last permutes, strided slices and expanded batches.
 */
public abstract class ConvConformance extends ConformanceBase {

    /** Sums of up to a few hundred products in float32. */
    private static final Tolerance CONV = new Tolerance(1e-4, 1e-4);

    @ParameterizedTest(name = "N{0} C{1} {2}x{3} O{4} k{5}x{6} s{7} p{8} d{9} g{10} bias {11}")
    @CsvSource({
            "2, 3, 9, 8, 4, 3, 3, 1, 1, 1, 1, true",
            "1, 8, 7, 7, 8, 3, 3, 2, 1, 1, 1, true",
            "2, 6, 11, 10, 4, 3, 3, 1, 2, 2, 2, false",
            "1, 8, 13, 13, 8, 7, 7, 1, 3, 1, 8, true",    // ConvNeXt's depthwise 7×7
            "2, 5, 9, 6, 5, 3, 3, 2, 1, 1, 5, false",     // depthwise, strided
            "3, 16, 5, 7, 24, 1, 1, 1, 0, 1, 1, true",    // 1×1
            "2, 6, 8, 8, 4, 1, 1, 2, 0, 1, 2, true",      // strided 1×1
            "1, 3, 16, 16, 6, 4, 4, 4, 0, 1, 1, true",    // ViT-style patchify
            "2, 4, 6, 17, 6, 2, 5, 3, 2, 1, 2, true"})
    void conv2dMatchesReferenceForwardAndBackward(int n, int c, int h, int w, int o, int kh, int kw, int s, int p, int d,
                                                  int groups, boolean bias) {
        assertMatchesReference("conv2d", in -> Convolutions.conv2d(in.randn(n, c, h, w), in.randn(o, c / groups, kh, kw),
                bias ? in.randn(o) : null, new int[] {s}, new int[] {p}, new int[] {d}, groups), CONV);
    }

    @ParameterizedTest(name = "kernel {0}x{1}, dilation {2}, groups {3}")
    @CsvSource({"3, 3, 1, 1", "4, 4, 1, 1", "2, 3, 2, 2", "5, 5, 1, 4"})
    void conv2dWithSamePaddingMatchesReference(int kh, int kw, int d, int groups) {
        assertMatchesReference("conv2d same", in -> Convolutions.conv2d(in.randn(2, 4, 7, 9), in.randn(4, 4 / groups, kh, kw),
                in.randn(4), new int[] {1}, "same", new int[] {d}, groups), CONV);
    }

    @ParameterizedTest(name = "layout {0}, groups {1}, kernel {2}")
    @CsvSource({"channels-last, 1, 3", "channels-last, 6, 3", "channels-last, 1, 1", "strided, 2, 3", "expanded, 1, 3",
            "strided, 1, 1", "expanded, 6, 5"})
    void conv2dOnNonContiguousInputsMatchesReference(String layout, int groups, int k) {
        assertMatchesReference("conv2d " + layout, in -> {
            Tensor x = switch (layout) {
                case "channels-last" -> in.randn(2, 8, 7, 6).permute(0, 3, 1, 2);          // (N, H, W, C) seen as NCHW
                case "strided" -> in.randn(2, 6, 8, 15).slice(3, 1, 15, 2);              // every other column
                default -> in.randn(1, 6, 8, 7).expand(3, 6, 8, 7);                      // one image broadcast
            };
            Tensor weight = in.randn(6, 6 / groups, k, k).transpose(2, 3);
            return Convolutions.conv2d(x, weight, in.randn(6), 1, k / 2, 1, groups);
        }, CONV);
    }

    @ParameterizedTest(name = "N{0} C{1} L{2} O{3} k{4} s{5} p{6} d{7} g{8}")
    @CsvSource({"2, 4, 17, 6, 3, 1, 1, 1, 1", "1, 6, 12, 6, 4, 1, 3, 1, 6", "3, 4, 20, 2, 5, 2, 2, 2, 2"})
    void conv1dMatchesReferenceForwardAndBackward(int n, int c, int len, int o, int k, int s, int p, int d, int groups) {
        assertMatchesReference("conv1d", in -> Convolutions.conv1d(in.randn(n, c, len), in.randn(o, c / groups, k), in.randn(o),
                s, p, d, groups), CONV);
    }

    @ParameterizedTest(name = "{0}x{1}, kernel {2}, stride {3}, padding {4}, dilation {5}, ceil {6}")
    @CsvSource({"8, 8, 2, 2, 0, 1, false", "9, 7, 3, 2, 1, 1, true", "10, 11, 3, 1, 1, 2, false", "1, 5, 1, 1, 0, 1, false"})
    void maxPoolMatchesReferenceForwardAndBackward(int h, int w, int k, int s, int p, int d, boolean ceil) {
        assertMatchesReference("max_pool2d", in -> Pooling.maxPool2d(in.randn(2, 3, h, w), new int[] {k}, new int[] {s},
                new int[] {p}, new int[] {d}, ceil), CONV);
        assertMatchesReference("max_pool2d channels-last", in -> Pooling.maxPool2d(in.randn(2, h, w, 3).permute(0, 3, 1, 2),
                new int[] {k}, new int[] {s}, new int[] {p}, new int[] {d}, ceil), CONV);
    }

    @ParameterizedTest(name = "kernel {0}, stride {1}, padding {2}")
    @CsvSource({"2, 2, 1", "3, 1, 1", "3, 2, 0"})
    void maxPoolOfAnAllNegativeInfinityWindowPicksItsFirstCell(int k, int s, int p) {
        assertMatchesReference("max_pool2d of -inf rows", in -> {
            Tensor rows = Tensor.full(Double.NEGATIVE_INFINITY, 1, 1, 2, 7).expand(2, 3, 2, 7);
            Tensor x = in.randn(2, 3, 6, 7).add(Tensor.cat(java.util.List.of(rows, Tensor.zeros(2, 3, 4, 7)), 2));
            return Pooling.maxPool2d(x, new int[] {k}, new int[] {s}, new int[] {p}, new int[] {1}, false);
        }, CONV);
    }

    @ParameterizedTest(name = "{0}x{1}, kernel {2}, stride {3}, padding {4}, ceil {5}, count_include_pad {6}")
    @CsvSource({"8, 8, 2, 2, 0, false, true", "9, 7, 3, 2, 1, true, true", "9, 7, 3, 2, 1, true, false",
            "6, 10, 3, 1, 1, false, false"})
    void avgPoolMatchesReferenceForwardAndBackward(int h, int w, int k, int s, int p, boolean ceil, boolean countPad) {
        assertMatchesReference("avg_pool2d", in -> Pooling.avgPool2d(in.randn(2, 3, h, w), new int[] {k}, new int[] {s},
                new int[] {p}, ceil, countPad), CONV);
        assertMatchesReference("avg_pool2d strided", in -> Pooling.avgPool2d(in.randn(2, 3, h, 2 * w).slice(3, 0, 2 * w, 2),
                new int[] {k}, new int[] {s}, new int[] {p}, ceil, countPad), CONV);
    }

    @ParameterizedTest(name = "{0}x{1} to {2}x{3}")
    @CsvSource({"7, 7, 1, 1", "7, 5, 3, 2", "5, 3, 7, 4", "8, 8, 4, 4"})
    void adaptiveAvgPoolMatchesReferenceForwardAndBackward(int h, int w, int oh, int ow) {
        assertMatchesReference("adaptive_avg_pool2d", in -> Pooling.adaptiveAvgPool2d(in.randn(2, 3, h, w), oh, ow), CONV);
        assertMatchesReference("adaptive_avg_pool2d channels-last",
                in -> Pooling.adaptiveAvgPool2d(in.randn(2, h, w, 3).permute(0, 3, 1, 2), oh, ow), CONV);
    }
}
