package dev.symbiont.cuda.fused;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The activation gradients ({@code activation.cu}) on the PTX interpreter against the reference
 * backend: odd sizes around a warp and a block, inputs far into both tails, and a strided operand
 * (copied contiguous first); each case checks that the kernel ran, not the reference fallback.
 */
class CudaActivationKernelsTest extends ConformanceBase {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);

    @Override
    protected Backend backend() { return cuda; }

    @Test
    void theBackendHandsOutItsActivationKernels() {
        assertEquals("CudaActivationKernels", String.valueOf(FusedKernels.of(ActivationKernels.FAMILY, cuda)));
    }

    @ParameterizedTest(name = "size {0}")
    @ValueSource(ints = {1, 31, 33, 257, 1000})
    void gradientsMatchReferenceOnOddSizes(int n) {
        long before = fallbacks();
        assertMatchesReference("gelu n=" + n, in -> in.randn(n).mul(4.0).gelu(), ELEMENTWISE);
        assertMatchesReference("gelu tanh n=" + n, in -> in.randn(n).mul(4.0).geluTanh(), ELEMENTWISE);
        assertMatchesReference("silu n=" + n, in -> in.randn(n).mul(4.0).silu(), ELEMENTWISE);
        assertEquals(before, fallbacks(), "the activation kernel took every call");
    }

    @Test
    void gradientsMatchReferenceFarIntoTheTailsAndOnStridedInput() {
        long before = fallbacks();
        assertMatchesReference("gelu tails", in -> in.randn(7, 9).mul(30.0).gelu(), ELEMENTWISE);
        assertMatchesReference("gelu tanh tails", in -> in.randn(7, 9).mul(30.0).geluTanh(), ELEMENTWISE);
        assertMatchesReference("silu tails", in -> in.randn(7, 9).mul(30.0).silu(), ELEMENTWISE);
        assertMatchesReference("silu transposed", in -> in.transposed(7, 9).silu(), ELEMENTWISE);
        assertEquals(before, fallbacks(), "the activation kernel took every call");
    }

    private static long fallbacks() {
        return Fallbacks.count("gelu backward") + Fallbacks.count("gelu_tanh backward") + Fallbacks.count("silu backward");
    }
}
