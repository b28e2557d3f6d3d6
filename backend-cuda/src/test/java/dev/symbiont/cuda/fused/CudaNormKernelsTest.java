package dev.symbiont.cuda.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.norm.Normalization;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The norm family's kernels ({@code norm.cu}) on the PTX interpreter against the reference backend,
 * forward and backward, at row lengths below, across and well above a warp and a block (one block
 * of up to 256 threads per row), and with enough rows that the weight and bias gradients sum over
 * many. Each case also checks that the kernel ran, not the reference fallback. The family's
 * conformance kit runs in {@link dev.symbiont.cuda.CudaInterpretedConformanceTest}.
 */
class CudaNormKernelsTest extends ConformanceBase {
    private static final List<String> OPS = List.of("softmax", "log_softmax", "layer_norm", "rms_norm", "add_layer_norm",
            "add_rms_norm", "softmax backward", "log_softmax backward", "layer_norm backward", "rms_norm backward",
            "add_layer_norm backward", "add_rms_norm backward");

    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);

    @Override
    protected Backend backend() { return cuda; }

    @Test
    void theBackendHandsOutItsNormKernels() {
        assertEquals("CudaNormKernels", String.valueOf(FusedKernels.of(NormKernels.FAMILY, cuda)));
    }

    @ParameterizedTest(name = "cols {0}")
    @ValueSource(ints = {1, 31, 33, 257, 1000})
    void softmaxFamilyMatchesReferenceAcrossWarpAndBlockSizes(int cols) {
        long before = fallbacks();
        assertMatchesReference("softmax cols=" + cols, in -> in.randn(3, cols).mul(4.0).softmax(-1), ELEMENTWISE);
        assertMatchesReference("log_softmax cols=" + cols, in -> in.randn(3, cols).mul(4.0).logSoftmax(-1), ACCUMULATING);
        assertEquals(before, fallbacks(), "the softmax kernels took every call");
    }

    @ParameterizedTest(name = "cols {0}")
    @ValueSource(ints = {1, 31, 33, 257, 1000})
    void rowNormsMatchReferenceAcrossWarpAndBlockSizes(int cols) {
        long before = fallbacks();
        assertMatchesReference("layer_norm cols=" + cols, in -> in.randn(3, cols)
                .layerNorm(new int[] {cols}, in.randn(cols), in.randn(cols), 1e-5), ACCUMULATING);
        assertMatchesReference("rms_norm cols=" + cols, in -> in.randn(3, cols).rmsNorm(new int[] {cols}, in.randn(cols), 1e-6), ACCUMULATING);
        assertMatchesReference("add_layer_norm cols=" + cols, in -> {
            Normalization.AddNorm r = Normalization.addLayerNorm(in.randn(3, cols), in.randn(3, cols), new int[] {cols},
                    in.randn(cols), in.randn(cols), 1e-5);
            return r.output().add(r.sum().mul(in.constant(3, cols)));
        }, ACCUMULATING);
        assertMatchesReference("add_rms_norm cols=" + cols, in -> {
            Normalization.AddNorm r = Normalization.addRmsNorm(in.randn(3, cols), in.randn(3, cols), new int[] {cols},
                    null, 1e-6);
            return r.output().mul(r.sum());
        }, ACCUMULATING);
        assertEquals(before, fallbacks(), "the norm kernels took every call");
    }

    @Test
    void parameterGradientsSumOverManyRows() {
        long before = fallbacks();
        assertMatchesReference("layer_norm 300 rows", in -> in.randn(300, 5)
                .layerNorm(new int[] {5}, in.randn(5), in.randn(5), 1e-5), ACCUMULATING);
        assertMatchesReference("rms_norm 300 rows", in -> in.randn(4, 75, 5).rmsNorm(new int[] {5}, in.randn(5), 1e-6), ACCUMULATING);
        assertEquals(before, fallbacks(), "the norm kernels took every call");
    }

    @Test
    void softmaxAlongAnotherDimRunsTheReferenceAndSaysSo() {
        long before = Fallbacks.count("softmax");
        assertMatchesReference("softmax dim 0", in -> in.randn(5, 9).softmax(0), ELEMENTWISE);
        assertTrue(Fallbacks.count("softmax") > before, "softmax along dim 0 is counted as a fallback");
    }

    @Test
    void largeLogitsAndConstantRowsStayFinite() {
        assertMatchesReference("softmax large", in -> in.randn(4, 40).mul(1000.0).softmax(-1), ELEMENTWISE);
        assertMatchesReference("layer_norm constant rows", in -> Tensor.full(3.0, 4, 40).add(in.randn(4, 40).mul(0.0))
                .layerNorm(new int[] {40}, in.randn(40), in.randn(40), 1e-5), ACCUMULATING);
    }

    private static long fallbacks() {
        long n = 0;
        for (String op : OPS) n += Fallbacks.count(op);
        return n;
    }
}
