package dev.symbiont.cuda.fused;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.conv.ConvConformance;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.core.fused.conv.Pooling;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The conv family's kernels ({@code conv.cu}: im2col and col2im around the backend's GEMM, the
 * direct depthwise kernels, the pools) on the PTX interpreter against the reference backend:
 * the family's conformance kit, and each path — dense, grouped, dilated, pointwise, depthwise,
 * every pool — checked to have run its kernel rather than the reference fallback.
 */
class CudaConvKernelsTest extends ConformanceBase {
    private static final List<String> OPS = List.of("conv2d", "conv2d backward", "max_pool2d", "max_pool2d backward",
            "avg_pool2d", "avg_pool2d backward", "adaptive_avg_pool2d", "adaptive_avg_pool2d backward");
    private static final Tolerance CONV = new Tolerance(1e-4, 1e-4);

    private static final String IMPLICIT = "symbiont.cuda.conv";

    private final InterpretedDriver driver = new InterpretedDriver();
    private final CudaBackend cuda = new CudaBackend(driver, 0);

    @Override
    protected Backend backend() { return cuda; }

    @Test
    void theBackendHandsOutItsConvKernels() {
        assertEquals("CudaConvKernels", String.valueOf(FusedKernels.of(ConvKernels.FAMILY, cuda)));
    }

    @ParameterizedTest(name = "C{0} O{1} k{2} s{3} p{4} d{5} g{6}")
    @CsvSource({"3, 5, 3, 1, 1, 1, 1", "4, 6, 3, 2, 2, 2, 2", "6, 6, 5, 2, 2, 1, 6", "8, 4, 1, 1, 0, 1, 2", "4, 4, 3, 1, 0, 3, 4"})
    void everyConvolutionPathRunsItsKernels(int c, int o, int k, int s, int p, int d, int groups) {
        long before = fallbacks();
        assertMatchesReference("conv2d", in -> Convolutions.conv2d(in.randn(2, c, 9, 7), in.randn(o, c / groups, k, k),
                in.randn(o), new int[] {s}, new int[] {p}, new int[] {d}, groups), CONV);
        assertEquals(before, fallbacks(), "the conv kernels took every call");
    }

    @Test
    void everyPoolRunsItsKernels() {
        long before = fallbacks();
        assertMatchesReference("max_pool2d", in -> Pooling.maxPool2d(in.randn(2, 3, 9, 7), new int[] {3}, new int[] {2},
                new int[] {1}, new int[] {2}, true), CONV);
        assertMatchesReference("avg_pool2d", in -> Pooling.avgPool2d(in.randn(2, 3, 9, 7), new int[] {3}, new int[] {2},
                new int[] {1}, true, false), CONV);
        assertMatchesReference("adaptive_avg_pool2d", in -> Pooling.adaptiveAvgPool2d(in.randn(2, 3, 7, 5), 3, 2), CONV);
        assertEquals(before, fallbacks(), "the pooling kernels took every call");
    }

    @Test
    void maxPoolTiesGoToTheFirstCellInWindowOrderAndRepeatsAddUp() {
        // constant input: every window ties, so each takes its first cell; overlapping windows share cells
        assertMatchesReference("max_pool2d ties", in -> {
            Tensor x = in.leaf(Tensor.full(1.5, 1, 2, 6, 6));
            ConvKernels.MaxPoolResult r = Pooling.maxPool2dWithIndices(x, new int[] {3}, new int[] {1}, new int[] {1},
                    new int[] {1}, false);
            return r.output().mul(in.constant(1, 2, 6, 6)).add(r.indices().to(dev.symbiont.core.DType.FLOAT32));
        }, CONV);
    }

    private static long fallbacks() {
        long n = 0;
        for (String op : OPS) n += Fallbacks.count(op);
        return n;
    }

    /** The family's conformance kit on this backend. */
    @Nested
    class ConvKit extends ConvConformance {
        @Override protected Backend backend() { return cuda; }
    }

    /** The kit again with the forward as the implicit GEMM ({@code -Dsymbiont.cuda.conv=implicit}); the backward stays im2col. */
    @Nested
    class ImplicitGemmKit extends ConvConformance {
        @Override protected Backend backend() { return cuda; }

        @BeforeEach
        void implicit() { System.setProperty(IMPLICIT, "implicit"); }

        @AfterEach
        void unset() { System.clearProperty(IMPLICIT); }
    }

    @Test
    void theImplicitGemmIsOneLaunchWithTheBiasInIt() {
        try (Scope s = Backends.use(cuda)) {
            Generator g = new Generator(5);
            Tensor x = Tensor.randn(g, 2, 6, 9, 7), w = Tensor.randn(g, 4, 3, 3, 3), b = Tensor.randn(g, 4);
            float[] im2col = Convolutions.conv2d(x, w, b, new int[] {2}, new int[] {1}, new int[] {1}, 2).toFloatArray();
            System.setProperty(IMPLICIT, "implicit");
            try {
                long before = driver.launches();
                Tensor out = Convolutions.conv2d(x, w, b, new int[] {2}, new int[] {1}, new int[] {1}, 2);
                assertEquals(before + 1, driver.launches(), "one kernel: no column matrix, no separate bias add");
                assertClose("implicit GEMM against im2col", im2col, out.toFloatArray(), CONV);
                System.setProperty(IMPLICIT, "winograd");
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Convolutions.conv2d(x, w, b,
                        new int[] {1}, new int[] {1}, new int[] {1}, 2));
                assertTrue(e.getMessage().contains(IMPLICIT) && e.getMessage().contains("winograd"), e.getMessage());
            } finally {
                System.clearProperty(IMPLICIT);
            }
        }
    }
}
