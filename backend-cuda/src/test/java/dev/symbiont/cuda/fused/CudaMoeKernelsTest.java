package dev.symbiont.cuda.fused;

import dev.symbiont.core.DType;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The moe family's kernels ({@code moe.cu}) on the PTX interpreter against the reference backend,
 * beyond the family's kit (run on this backend by {@link dev.symbiont.cuda.CudaInterpretedConformanceTest}):
 * groups and widths that cross the grouped GEMM's 64-row and 64-column tiles, more slots than
 * one permute chunk of 256, more experts than one launch's table of 64, odd hidden widths, empty
 * experts and one expert taking every slot; each case also checks that the kernels ran, not the
 * reference fallback, and bad permutations and expert ids raise naming the op.
 */
class CudaMoeKernelsTest extends ConformanceBase {
    private static final List<String> OPS = List.of("moe_route", "moe_route backward", "moe_permute", "moe_permute backward",
            "grouped_matmul", "grouped_matmul backward", "moe_combine", "moe_combine backward", "moe_swiglu", "moe_swiglu backward", "grouped_swiglu");

    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);

    @Override
    protected Backend backend() { return cuda; }

    @Test
    void theBackendHandsOutItsMoeKernels() {
        assertEquals("CudaMoeKernels", String.valueOf(FusedKernels.of(MoeKernels.FAMILY, cuda)));
    }

    /** A routed SwiGLU expert layer through every op of the family: route, permute, grouped SwiGLU, grouped GEMM, combine. */
    private static Tensor routedLayer(Inputs in, int tokens, int d, int hidden, int experts, int k, int capacity, boolean renormalize) {
        Tensor x = in.randn(tokens, d);
        MoeKernels.Routed r = Moe.route(x, in.randn(experts, d), k, renormalize);
        List<Tensor> w1 = new ArrayList<>(), w3 = new ArrayList<>(), w2 = new ArrayList<>();
        for (int e = 0; e < experts; e++) {
            w1.add(in.transposed(d, hidden)); // a Linear's (hidden, d) weight seen as (d, hidden)
            w3.add(in.randn(d, hidden));
            w2.add(e % 2 == 0 ? in.transposed(hidden, d) : in.randn(hidden, d));
        }
        MoeKernels.Permuted p = Moe.permute(x, r.expertIds(), experts, capacity);
        Tensor h = Moe.groupedSwiglu(p.rows(), w1, w3, p.groupSizes());
        Tensor y = Moe.combine(Moe.groupedMatmul(h, w2, p.groupSizes()), r.weights(), p.permutation());
        return y.add(r.logsumexp().reshape(tokens, 1).mul(0.1));
    }

    @ParameterizedTest(name = "T {0}, d {1}, hidden {2}, E {3}, k {4}, capacity {5}")
    @CsvSource({
            "70, 9, 67, 4, 2, 0",    // groups over a 64-row tile, hidden over a 64-column tile
            "150, 5, 13, 2, 2, 0",   // 300 slots: two permute chunks
            "40, 6, 7, 8, 2, 9",     // dropping capacity
            "30, 4, 5, 70, 3, 0",    // two launches of the expert table, most experts empty
            "9, 3, 1, 3, 1, 0"})     // width-1 hidden
    void aRoutedExpertLayerMatchesReferenceWithEveryKernel(int tokens, int d, int hidden, int experts, int k, int cap) {
        long before = fallbacks();
        int capacity = cap == 0 ? MoeKernels.DROPLESS : cap;
        assertMatchesReference("layer T=" + tokens + " E=" + experts, in -> routedLayer(in, tokens, d, hidden, experts, k, capacity, true),
                matmulTolerance(Math.max(d, hidden)));
        assertEquals(before, fallbacks(), "the moe kernels took every call");
    }

    @Test
    void groupedMatmulOverWideGroupsWithOneExpertTakingEveryRow() {
        long before = fallbacks();
        assertMatchesReference("one expert of three takes 130 rows", in -> Moe.groupedMatmul(in.randn(130, 70), in.randn(3, 70, 66),
                Tensor.fromArray(new long[] {0, 130, 0})), matmulTolerance(70));
        assertMatchesReference("int32 sizes, transposed input", in -> Moe.groupedMatmul(in.transposed(100, 17),
                in.transposed(2, 17, 65), Tensor.fromArray(new int[] {65, 35})), matmulTolerance(65));
        assertEquals(before, fallbacks(), "the moe kernels took every call");
    }

    /** Without gradients the gated kernel writes only h, not the two projections backward would read. */
    @Test
    void groupedSwigluWithoutGradientsMatchesReference() {
        long before = fallbacks();
        assertMatchesReference("grouped swiglu under no_grad", in -> {
            try (Scope s = GradMode.disabled()) {
                List<Tensor> gate = new ArrayList<>(), up = new ArrayList<>();
                for (int e = 0; e < 3; e++) {
                    gate.add(in.transposed(9, 67));
                    up.add(in.randn(9, 67));
                }
                return Moe.groupedSwiglu(in.randn(70, 9), gate, up, Tensor.fromArray(new long[] {20, 0, 50}));
            }
        }, matmulTolerance(9));
        assertEquals(before, fallbacks(), "the moe kernels took every call");
    }

    @Test
    void permuteGivesTheReferenceGroupsAcrossChunksAndWithDrops() {
        for (int cap : new int[] {MoeKernels.DROPLESS, 40, 1}) {
            assertMatchesReference("permutation cap " + cap, in -> Moe.permute(in.randn(200, 3), in.indices(5, 200, 2), 5, cap)
                    .permutation(), EXACT);
            assertMatchesReference("sizes cap " + cap, in -> Moe.permute(in.randn(200, 3), in.indices(5, 200, 2), 5, cap)
                    .groupSizes(), EXACT);
            assertMatchesReference("rows cap " + cap, in -> Moe.permute(in.randn(200, 3), in.indices(5, 200, 2), 5, cap).rows(), EXACT);
        }
    }

    @Test
    void routeOnWideExpertCountsAndTies() {
        long before = fallbacks();
        assertMatchesReference("route E=70 ids", in -> Moe.route(in.randn(11, 5), in.randn(70, 5), 4, false).expertIds(), EXACT);
        assertMatchesReference("route E=70", in -> {
            MoeKernels.Routed r = Moe.route(in.randn(11, 5), in.randn(70, 5), 4, true);
            return r.weights().mul(in.constant(11, 4)).sum(1, false).add(r.probs().mul(in.constant(11, 70)).sum(1, false));
        }, matmulTolerance(5));
        assertEquals(before, fallbacks(), "the moe kernels took every call");
    }

    @Test
    void anExpertIdOutOfRangeRaisesNamingPermute() {
        try (Scope s = Backends.use(cuda)) {
            Tensor x = Tensor.randn(new dev.symbiont.core.Generator(1), 3, 4);
            Tensor ids = Tensor.fromArray(new long[] {0, 1, 2, 7, 1, 0}, 3, 2);
            RuntimeException e = assertThrows(IndexOutOfBoundsException.class, () -> {
                Moe.permute(x, ids, 4, MoeKernels.DROPLESS);
                cuda.synchronize();
            });
            assertTrue(e.getMessage().contains("moe_permute") && e.getMessage().contains("7"), e.getMessage());
        }
    }

    @Test
    void aRepeatedOrOutOfRangePermutationEntryRaisesNamingCombine() {
        try (Scope s = Backends.use(cuda)) {
            Tensor y = Tensor.ones(3, 2), w = Tensor.ones(2, 2);
            RuntimeException twice = assertThrows(IllegalArgumentException.class, () -> {
                Moe.combine(y, w, Tensor.fromArray(new long[] {0, 2, 2}));
                cuda.synchronize();
            });
            assertTrue(twice.getMessage().contains("moe_combine") && twice.getMessage().contains("slot 2"), twice.getMessage());
            RuntimeException outside = assertThrows(IndexOutOfBoundsException.class, () -> {
                Moe.combine(y, w, Tensor.fromArray(new long[] {0, 9, 1}));
                cuda.synchronize();
            });
            assertTrue(outside.getMessage().contains("moe_combine") && outside.getMessage().contains("entry 9"), outside.getMessage());
            // the backend goes on after a raised error
            assertArrayEquals(new float[] {2, 2, 1, 1}, Moe.combine(y, w, Tensor.fromArray(new long[] {0, 1, 2})).toFloatArray());
        }
    }

    private static long fallbacks() {
        return OPS.stream().mapToLong(Fallbacks::count).sum();
    }
}
