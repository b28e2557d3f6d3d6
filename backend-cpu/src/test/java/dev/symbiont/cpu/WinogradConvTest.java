package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.cpu.fused.ConvPath;
import dev.symbiont.cpu.gemm.GemmPath;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Winograd F(2×2, 3×3) path of the CPU conv kernels, forced on with {@value ConvPath#PROPERTY},
 * against the family's reference: forward, input, weight and bias gradients within 1e-4 over
 * paddings 0, 1 and 2, odd maps (partial output tiles at the edges), maps wide enough for the
 * vector runs of tiles and their scalar tails, batch 1, channel counts that are no multiple of
 * the vector width, several blocks of tile rows, and input views whose rows are strided or not
 * consecutive at all; the scalar twin against the vector transforms; and which geometries the
 * path takes.
 */
class WinogradConvTest {
    private static final CpuBackend CPU = new CpuBackend();

    /** How x is laid out: contiguous, each row inside a wider one, or channels-last. */
    enum Layout { CONTIGUOUS, NARROWED, CHANNELS_LAST }

    /** Output, then the gradients of x, weight and bias, for a fixed random output gradient. */
    private static List<float[]> run(boolean reference, int n, int c, int h, int w, int o, int pad, Layout layout) {
        return run(CPU, reference, n, c, h, w, o, pad, layout);
    }

    private static List<float[]> run(CpuBackend backend, boolean reference, int n, int c, int h, int w, int o, int pad, Layout layout) {
        String before = System.getProperty(ConvPath.PROPERTY);
        System.setProperty(ConvPath.PROPERTY, "winograd");
        try (var scope = Backends.use(backend); var forced = reference ? FusedKernels.forceReference(ConvKernels.FAMILY) : null) {
            Generator gen = new Generator(31);
            Tensor base = switch (layout) {
                case CONTIGUOUS -> Tensor.randn(gen, n, c, h, w);
                case NARROWED -> Tensor.randn(gen, n, c, h, w + 3);
                case CHANNELS_LAST -> Tensor.randn(gen, n, h, w, c);
            };
            base.requiresGrad(true);
            Tensor x = switch (layout) {
                case CONTIGUOUS -> base;
                case NARROWED -> base.narrow(3, 2, w);
                case CHANNELS_LAST -> base.permute(0, 3, 1, 2);
            };
            Tensor weight = Tensor.randn(gen, o, c, 3, 3).mul(1 / Math.sqrt(9.0 * c)).detach().requiresGrad(true);
            Tensor bias = Tensor.randn(gen, o).requiresGrad(true);
            Tensor y = Convolutions.conv2d(x, weight, bias, 1, pad, 1, 1);
            y.backward(Tensor.randn(new Generator(7), y.shape()));
            List<float[]> out = new ArrayList<>();
            out.add(y.toFloatArray());
            for (Tensor t : new Tensor[] {base, weight, bias}) out.add(t.grad().toFloatArray());
            return out;
        } finally {
            if (before == null) System.clearProperty(ConvPath.PROPERTY);
            else System.setProperty(ConvPath.PROPERTY, before);
        }
    }

    @ParameterizedTest(name = "{0}: N{1} C{2} {3}x{4} O{5} p{6} {7}")
    @CsvSource({
            "even map padding 1, 2, 8, 8, 8, 8, 1, CONTIGUOUS",
            "odd map padding 1, 2, 5, 7, 9, 6, 1, CONTIGUOUS",
            "padding 0 (odd output), 1, 3, 9, 8, 5, 0, CONTIGUOUS",
            "padding 2, 2, 6, 5, 6, 9, 2, CONTIGUOUS",
            "batch 1 odd channels, 1, 11, 7, 7, 13, 1, CONTIGUOUS",
            "1x1 map padding 1, 3, 4, 1, 1, 5, 1, CONTIGUOUS",
            "many blocks of tile rows, 5, 20, 11, 13, 18, 1, CONTIGUOUS",
            "wide odd map (vector runs and a tail), 2, 5, 6, 37, 7, 1, CONTIGUOUS",
            "wide map padding 0, 1, 3, 5, 42, 4, 0, CONTIGUOUS",
            "wide map padding 2, 1, 4, 4, 35, 3, 2, CONTIGUOUS",
            "a ResNet stage-1 width (overlapping last runs), 1, 3, 4, 56, 4, 1, CONTIGUOUS",
            "strided rows, 2, 5, 7, 6, 7, 1, NARROWED",
            "strided wide rows, 1, 3, 5, 40, 4, 1, NARROWED",
            "channels-last view, 2, 6, 6, 7, 5, 2, CHANNELS_LAST"})
    void winogradMatchesTheReference(String name, int n, int c, int h, int w, int o, int pad, Layout layout) {
        CpuConvTest.assertClose(name, run(true, n, c, h, w, o, pad, layout), run(false, n, c, h, w, o, pad, layout));
    }

    @Test
    void theScalarTwinMatchesTheVectorTransforms() {
        CpuBackend scalar = new CpuBackend(GemmPath.EJML, false);
        CpuConvTest.assertClose("winograd, scalar vs vector", run(CPU, false, 2, 5, 7, 45, 6, 1, Layout.CONTIGUOUS),
                run(scalar, false, 2, 5, 7, 45, 6, 1, Layout.CONTIGUOUS));
    }

    @Test
    void weightAndBiasGradientsAloneMatchTheFullBackward() {
        String before = System.getProperty(ConvPath.PROPERTY);
        System.setProperty(ConvPath.PROPERTY, "winograd");
        try (var scope = Backends.use(CPU)) {
            Generator gen = new Generator(4);
            Tensor x = Tensor.randn(gen, 2, 5, 7, 6), weight = Tensor.randn(gen, 6, 5, 3, 3), gradOut = Tensor.randn(gen, 2, 6, 7, 6);
            ConvGeometry g = new ConvGeometry(2, 5, 7, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 7, 6);
            ConvKernels cpu = CPU.fused(ConvKernels.FAMILY), reference = ConvKernels.FAMILY.reference();
            ConvKernels.ConvGrads all = reference.conv2dBackward(gradOut, x, weight, g, true, true, true);
            ConvKernels.ConvGrads biasOnly = cpu.conv2dBackward(gradOut, x, weight, g, false, false, true);
            ConvKernels.ConvGrads weightOnly = cpu.conv2dBackward(gradOut, x, weight, g, false, true, false);
            CpuConvTest.assertClose("one gradient at a time",
                    List.of(all.weight().toFloatArray(), all.bias().toFloatArray()),
                    List.of(weightOnly.weight().toFloatArray(), biasOnly.bias().toFloatArray()));
            assertEquals(null, biasOnly.input());
            assertEquals(null, weightOnly.bias());
        } finally {
            if (before == null) System.clearProperty(ConvPath.PROPERTY);
            else System.setProperty(ConvPath.PROPERTY, before);
        }
    }

    private static ConvGeometry conv(int c, int size, int o, int k, int stride, int pad, int groups) {
        int out = (size + 2 * pad - k) / stride + 1;
        return new ConvGeometry(8, c, size, size, o, k, k, stride, stride, pad, pad, 1, 1, groups, out, out);
    }

    @ParameterizedTest(name = "padding {0}")
    @ValueSource(ints = {0, 1, 2})
    void forcedWinogradGradientsMatchFiniteDifferences(int pad) {
        String before = System.getProperty(ConvPath.PROPERTY);
        System.setProperty(ConvPath.PROPERTY, "winograd");
        try {
            Generator gen = new Generator(5);
            // a 5 × 7 map: partial 2 × 2 output tiles on both edges
            GradCheck.check("conv2d on the Winograd path, padding " + pad, CPU,
                    in -> Convolutions.conv2d(in.get(0), in.get(1), in.get(2), 1, pad, 1, 1),
                    GradCheck.randn(gen, 0.5, 2, 3, 5, 7), GradCheck.randn(gen, 0.5, 4, 3, 3, 3), GradCheck.randn(gen, 0.5, 4));
        } finally {
            if (before == null) System.clearProperty(ConvPath.PROPERTY);
            else System.setProperty(ConvPath.PROPERTY, before);
        }
    }

    @Test
    void autoTakesWinogradForWide3x3Stride1ConvsOnly() {
        assertTrue(ConvPath.AUTO.winograd(conv(64, 56, 64, 3, 1, 1, 1)));
        assertFalse(ConvPath.AUTO.winograd(conv(3, 28, 64, 3, 1, 1, 1)), "a 3-channel stem");
        assertFalse(ConvPath.AUTO.winograd(conv(64, 56, 64, 3, 2, 1, 1)), "stride 2");
        assertFalse(ConvPath.AUTO.winograd(conv(64, 56, 64, 3, 1, 1, 4)), "grouped");
        assertFalse(ConvPath.AUTO.winograd(conv(64, 56, 64, 1, 1, 0, 1)), "1x1");
        assertFalse(ConvPath.AUTO.winograd(conv(64, 56, 64, 3, 1, 3, 1)), "padding 3");
        assertTrue(ConvPath.WINOGRAD.winograd(conv(3, 28, 64, 3, 1, 1, 1)), "forced on where it applies");
        assertFalse(ConvPath.WINOGRAD.winograd(conv(64, 56, 64, 3, 2, 1, 1)), "forced on where it does not apply");
        assertFalse(ConvPath.IM2COL.winograd(conv(64, 56, 64, 3, 1, 1, 1)), "forced off");
    }

    @Test
    void anUnknownPathNamesThePropertyAndTheChoices() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConvPath.parse("fft"));
        assertTrue(e.getMessage().contains(ConvPath.PROPERTY) && e.getMessage().contains("winograd"), e.getMessage());
        assertEquals(ConvPath.IM2COL, ConvPath.parse(" Im2col "));
    }
}
