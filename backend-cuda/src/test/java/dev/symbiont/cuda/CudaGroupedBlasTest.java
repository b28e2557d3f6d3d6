package dev.symbiont.cuda;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The moe family's grouped GEMMs on the BLAS route ({@code -Dsymbiont.cuda.moeGemm=blas}) against
 * the reference: on the interpreter the route is the own GEMM kernel, one product per expert with
 * rows, so these check the per-expert shapes, offsets, leading dimensions and transposes the route
 * hands to cuBLAS's grouped GEMM on a GPU ({@code CublasFfmTest} checks that call's arguments).
 */
class CudaGroupedBlasTest extends ConformanceBase {
    private final InterpretedDriver driver = new InterpretedDriver();
    private final CudaBackend cuda = new CudaBackend(driver, 0);

    @Override
    protected Backend backend() { return cuda; }

    @BeforeEach
    void blasRoute() { System.setProperty(CudaGroupedBlas.PROPERTY, "blas"); }

    @AfterEach
    void unset() { System.clearProperty(CudaGroupedBlas.PROPERTY); }

    /** Four experts: a Linear's transposed weight, a row-major one, an empty group, and a strided view the route copies. */
    private static List<Tensor> experts(Inputs in, int d, int h) {
        return List.of(in.transposed(d, h), in.randn(d, h), in.transposed(d, h), in.strided(d, h));
    }

    @Test
    void groupedMatmulAndItsGradientsMatchReference() {
        long before = Fallbacks.count("grouped_matmul") + Fallbacks.count("grouped_matmul backward");
        assertMatchesReference("grouped_matmul on the BLAS route", in -> Moe.groupedMatmul(in.randn(70, 9), experts(in, 9, 67),
                Tensor.fromArray(new long[] {20, 35, 0, 15})), matmulTolerance(67));
        assertMatchesReference("one expert takes every row", in -> Moe.groupedMatmul(in.transposed(130, 17),
                List.of(in.randn(17, 66), in.transposed(17, 66)), Tensor.fromArray(new int[] {0, 130})), matmulTolerance(66));
        assertEquals(before, Fallbacks.count("grouped_matmul") + Fallbacks.count("grouped_matmul backward"));
    }

    @Test
    void groupedSwigluComposesTwoGroupedGemmsOnTheRoute() {
        assertMatchesReference("grouped_swiglu on the BLAS route", in -> {
            Tensor x = in.randn(40, 6);
            return Moe.groupedSwiglu(x, experts(in, 6, 11), experts(in, 6, 11), Tensor.fromArray(new long[] {0, 25, 10, 5}));
        }, matmulTolerance(11));
    }

    @Test
    void theForwardRunsOneProductPerExpertWithRows() {
        try (Scope s = Backends.use(cuda)) {
            Generator g = new Generator(3);
            List<Tensor> weights = new ArrayList<>();
            for (int e = 0; e < 5; e++) weights.add(Tensor.randn(g, 8, 12));
            Tensor x = Tensor.randn(g, 30, 8), sizes = Tensor.fromArray(new long[] {10, 0, 12, 0, 8});
            long before = driver.launches();
            new CudaGroupedBlas(new FusedOperands(cuda)).forward(x, weights, sizes);
            assertEquals(before + 3, driver.launches(), "a GEMM for each of the three experts with rows, nothing for the empty ones");
        }
    }

    @Test
    void thePropertyNamesTheRoute() {
        assertEquals(CudaGroupedBlas.Route.BLAS, CudaGroupedBlas.configured());
        System.setProperty(CudaGroupedBlas.PROPERTY, " Kernel ");
        assertEquals(CudaGroupedBlas.Route.KERNEL, CudaGroupedBlas.configured());
        System.clearProperty(CudaGroupedBlas.PROPERTY);
        assertEquals(CudaGroupedBlas.Route.KERNEL, CudaGroupedBlas.configured());
        System.setProperty(CudaGroupedBlas.PROPERTY, "cutlass");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, CudaGroupedBlas::configured);
        assertTrue(e.getMessage().contains(CudaGroupedBlas.PROPERTY) && e.getMessage().contains("cutlass"), e.getMessage());
    }
}
