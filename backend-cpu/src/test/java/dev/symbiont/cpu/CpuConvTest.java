package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.core.fused.conv.Pooling;
import dev.symbiont.cpu.fused.CpuConv;
import dev.symbiont.cpu.gemm.GemmPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The CPU conv kernels ({@link CpuConv}) against the family's reference on the same backend at
 * the sizes of real networks, where the im2col path cuts each image into several panels and
 * switches between parallel items and parallel GEMMs: a ResNet 3×3 conv, its strided
 * downsampling conv, a 1×1 projection, the late stages' 4×4 and 2×2 maps with several images
 * in one panel (uneven last block), ConvNeXt's 7×7 depthwise conv and Mamba's causal
 * depthwise conv1d — forward and every gradient within 1e-4 — and the scalar twin against
 * the Vector-API kernels.
 */
class CpuConvTest {
    private static final CpuBackend CPU = new CpuBackend();

    /** Output, then the gradients of x, weight and bias, for a fixed random output gradient. */
    private static List<float[]> run(Backend backend, boolean reference, int n, int c, int h, int w, int o, int k, int stride,
                                     int pad, int groups, boolean oneD) {
        try (var scope = Backends.use(backend); var forced = reference ? FusedKernels.forceReference(ConvKernels.FAMILY) : null) {
            Generator gen = new Generator(23);
            Tensor x = (oneD ? Tensor.randn(gen, n, c, w) : Tensor.randn(gen, n, c, h, w)).requiresGrad(true);
            double scale = 1 / Math.sqrt((double) c / groups * k * (oneD ? 1 : k));
            Tensor weight = (oneD ? Tensor.randn(gen, o, c / groups, k) : Tensor.randn(gen, o, c / groups, k, k))
                    .mul(scale).detach().requiresGrad(true);
            Tensor bias = Tensor.randn(gen, o).requiresGrad(true);
            Tensor y = oneD ? Convolutions.conv1d(x, weight, bias, stride, pad, 1, groups)
                    : Convolutions.conv2d(x, weight, bias, stride, pad, 1, groups);
            y.backward(Tensor.randn(new Generator(5), y.shape()));
            List<float[]> out = new ArrayList<>();
            out.add(y.toFloatArray());
            for (Tensor t : new Tensor[] {x, weight, bias}) out.add(t.grad().toFloatArray());
            return out;
        }
    }

    static void assertClose(String what, List<float[]> expected, List<float[]> actual) {
        String[] names = {"output", "input gradient", "weight gradient", "bias gradient"};
        for (int i = 0; i < expected.size(); i++) {
            float[] e = expected.get(i), a = actual.get(i);
            assertEquals(e.length, a.length, what + " " + names[i] + ": length");
            double scale = 0;
            for (float v : e) scale = Math.max(scale, Math.abs(v));
            for (int j = 0; j < e.length; j++) {
                // float32 sums of up to a few thousand products: 1e-4 of the largest magnitude
                if (Math.abs(e[j] - a[j]) > 1e-4 * Math.max(1, scale)) {
                    fail(what + " " + names[i] + ": element " + j + " is " + a[j] + ", reference " + e[j]);
                }
            }
        }
    }

    @ParameterizedTest(name = "{0}: N{1} C{2} {3}x{4} O{5} k{6} s{7} p{8} g{9}")
    @CsvSource({
            "resnet 3x3 (parallel GEMMs), 1, 64, 20, 20, 64, 3, 1, 1, 1",
            "resnet 3x3 (parallel items), 4, 16, 20, 20, 32, 3, 1, 1, 1",
            "3x3 backward in slabs of 9 channels and one of 1, 2, 37, 20, 20, 24, 3, 1, 1, 1",
            "grouped 3x3 backward in slabs of 9 and 5 channels, 2, 64, 20, 20, 32, 3, 1, 1, 2",
            "downsample 3x3 stride 2, 2, 32, 15, 15, 64, 3, 2, 1, 1",
            "grouped 3x3, 2, 32, 12, 11, 32, 3, 1, 1, 4",
            "pointwise 1x1, 3, 64, 9, 9, 32, 1, 1, 0, 1",
            "pointwise batch 1, 1, 32, 14, 14, 48, 1, 1, 0, 1",
            "convnext depthwise 7x7, 2, 64, 14, 14, 64, 7, 1, 3, 64",
            "depthwise 3x3 stride 2, 2, 16, 13, 13, 16, 3, 2, 1, 16",
            "4x4 maps stride 2 (images batched), 13, 8, 8, 8, 16, 3, 2, 1, 1",
            "2x2 maps stride 2 (images batched), 14, 12, 4, 4, 24, 3, 2, 1, 1",
            "4x4 maps stride 1 (images batched), 11, 16, 4, 4, 16, 3, 1, 1, 1",
            "grouped 2x2 maps (images batched), 9, 16, 3, 3, 16, 3, 2, 1, 4",
            "downsample 1x1 stride 2 to 4x4 (images batched), 10, 8, 7, 7, 16, 1, 2, 0, 1"})
    void conv2dMatchesTheReferenceAtNetworkSizes(String name, int n, int c, int h, int w, int o, int k, int s, int p, int g) {
        assertClose(name, run(CPU, true, n, c, h, w, o, k, s, p, g, false), run(CPU, false, n, c, h, w, o, k, s, p, g, false));
    }

    @Test
    void mambasCausalDepthwiseConv1dMatchesTheReference() {
        // d_conv 4, padding 3: the caller keeps the first L outputs
        assertClose("causal conv1d", run(CPU, true, 2, 24, 1, 70, 24, 4, 1, 3, 24, true),
                run(CPU, false, 2, 24, 1, 70, 24, 4, 1, 3, 24, true));
    }

    @Test
    void theScalarTwinMatchesTheVectorKernels() {
        CpuBackend scalar = new CpuBackend(GemmPath.EJML, false);
        assertInstanceOf(CpuConv.class, scalar.fused(ConvKernels.FAMILY));
        assertClose("depthwise, scalar vs vector", run(CPU, false, 2, 8, 1, 11, 8, 5, 1, 2, 8, false),
                run(scalar, false, 2, 8, 1, 11, 8, 5, 1, 2, 8, false));
        assertClose("im2col, scalar vs vector", run(CPU, false, 2, 8, 9, 9, 8, 3, 1, 1, 2, false),
                run(scalar, false, 2, 8, 9, 9, 8, 3, 1, 1, 2, false));
    }

    @ParameterizedTest(name = "groups {0}, kernel {1}")
    @CsvSource({"1, 3", "4, 3", "1, 1"})
    void onlyTheGradientsAskedForAreComputed(int groups, int k) {
        try (var scope = Backends.use(CPU)) {
            Generator gen = new Generator(2);
            Tensor x = Tensor.randn(gen, 2, 4, 6, 6), weight = Tensor.randn(gen, 4, 4 / groups, k, k);
            Tensor gradOut = Tensor.randn(gen, 2, 4, 6, 6);
            ConvGeometry g = new ConvGeometry(2, 4, 6, 6, 4, k, k, 1, 1, k / 2, k / 2, 1, 1, groups, 6, 6);
            ConvKernels cpu = CPU.fused(ConvKernels.FAMILY), reference = ConvKernels.FAMILY.reference();
            ConvKernels.ConvGrads weightOnly = cpu.conv2dBackward(gradOut, x, weight, g, false, true, false);
            assertNull(weightOnly.input());
            assertNull(weightOnly.bias());
            ConvKernels.ConvGrads inputOnly = cpu.conv2dBackward(gradOut, x, weight, g, true, false, false);
            assertNull(inputOnly.weight());
            ConvKernels.ConvGrads all = reference.conv2dBackward(gradOut, x, weight, g, true, true, true);
            assertClose("one gradient at a time", List.of(new float[0], all.input().toFloatArray(), all.weight().toFloatArray()),
                    List.of(new float[0], inputOnly.input().toFloatArray(), weightOnly.weight().toFloatArray()));
        }
    }

    @Test
    void resnetStemPoolAndHeadMatchTheReference() {
        List<float[]> expected = pools(true), actual = pools(false);
        for (int i = 0; i < expected.size(); i++) {
            float[] e = expected.get(i), a = actual.get(i);
            for (int j = 0; j < e.length; j++) {
                if (Math.abs(e[j] - a[j]) > 1e-5) fail("pool result " + i + " element " + j + ": " + a[j] + " vs " + e[j]);
            }
        }
    }

    /** max_pool2d(3, 2, 1) then adaptive_avg_pool2d(1) and avg_pool2d(2): outputs and the input gradient. */
    private static List<float[]> pools(boolean reference) {
        try (var scope = Backends.use(CPU); var forced = reference ? FusedKernels.forceReference(ConvKernels.FAMILY) : null) {
            Tensor x = Tensor.randn(new Generator(9), 2, 16, 28, 28).requiresGrad(true);
            Tensor pooled = Pooling.maxPool2d(x, 3, 2, 1);
            Tensor head = Pooling.adaptiveAvgPool2d(pooled, 1), avg = Pooling.avgPool2d(pooled, 2);
            head.sum().add(avg.mul(avg).sum()).backward();
            return List.of(pooled.toFloatArray(), head.toFloatArray(), avg.toFloatArray(), x.grad().toFloatArray());
        }
    }
}
