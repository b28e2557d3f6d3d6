package dev.symbiont.cuda.fused;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.linear.LinearConformance;
import dev.symbiont.core.fused.linear.LinearKernels;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The linear family's epilogue kernel ({@code linear.cu}) after the backend's GEMM, on the PTX
 * interpreter against the reference backend: the family's conformance kit, the kernel taking
 * linear and linear_gelu (not the fallback), and the forward of linear_gelu with its derivative
 * as two launches, the GEMM and the epilogue.
 */
class CudaLinearKernelsTest extends ConformanceBase {
    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);

    @Override
    protected Backend backend() { return cuda; }

    @Test
    void theBackendHandsOutItsLinearKernels() {
        assertEquals("CudaLinearKernels", String.valueOf(FusedKernels.of(LinearKernels.FAMILY, cuda)));
    }

    @Test
    void linearAndLinearGeluRunTheEpilogueAcrossABlock() {
        long before = Fallbacks.count("linear") + Fallbacks.count("linear_gelu");
        // 9 × 37 = 333 outputs: more than one 256-thread block, a row length that is no power of two
        assertMatchesReference("linear", in -> Linears.linear(in.randn(9, 13), in.randn(37, 13), in.randn(37)), matmulTolerance(13));
        assertMatchesReference("linear_gelu", in -> Linears.linearGelu(in.randn(9, 13).mul(2.0), in.randn(37, 13), in.randn(37)),
                matmulTolerance(13));
        assertMatchesReference("linear_gelu no bias", in -> Linears.linearGelu(in.randn(9, 13), in.randn(37, 13), null),
                matmulTolerance(13));
        assertEquals(before, Fallbacks.count("linear") + Fallbacks.count("linear_gelu"), "the epilogue took every call");
    }

    @Test
    void linearGeluForwardIsTheGemmAndOneEpilogueLaunch() {
        InterpretedDriver driver = new InterpretedDriver();
        CudaBackend backend = new CudaBackend(driver, 0);
        try (Scope s = Backends.use(backend)) {
            Generator g = new Generator(3);
            Tensor x = Tensor.randn(g, 4, 6), w = Tensor.randn(g, 5, 6), b = Tensor.randn(g, 5);
            LinearKernels kernels = FusedKernels.of(LinearKernels.FAMILY, backend);
            long start = driver.launches();
            kernels.linearGelu(x, w, b, true);
            long fused = driver.launches() - start;
            start = driver.launches();
            LinearKernels.FAMILY.reference().linearGelu(x, w, b, true);
            long composed = driver.launches() - start;
            assertEquals(2, fused, "the GEMM and the epilogue");
            assertTrue(composed > fused + 1, "the reference makes " + composed + " launches");
        }
    }

    /** The family's conformance kit on this backend. */
    @Nested
    class LinearKit extends LinearConformance {
        @Override protected Backend backend() { return cuda; }
    }
}
