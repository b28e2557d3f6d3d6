package dev.symbiont.cuda.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.scan.ScanConformance;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.fused.scan.Scans;
import dev.symbiont.core.Generator;
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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scan family's kernels ({@code scan.cu}) on the PTX interpreter against the reference
 * backend, forward and every gradient. The linear scan runs in both variants (block-local and
 * grid-wide, {@code -Dsymbiont.cuda.linearScan}) on the same inputs, over lengths that cross its
 * chunks of 512 steps, sequences along the first, middle and last dim, strided operands, with
 * and without an initial state. The selective scan crosses its chunks of 128 steps, channel
 * counts that leave a block's warps idle, N from 1 to 64, groups, strided operands, and every
 * optional operand present or absent. Each case also checks that the kernels ran, not the
 * reference fallback; the family's conformance kit runs on the default variant in
 * {@link dev.symbiont.cuda.CudaInterpretedConformanceTest} and here on the grid-wide one.
 */
class CudaScanKernelsTest extends ConformanceBase {
    private static final String VARIANT = "symbiont.cuda.linearScan";
    private static final Tolerance SCAN = new Tolerance(1e-4, 1e-4);
    private static final List<String> OPS = List.of("linear_scan", "linear_scan backward", "selective_scan",
            "selective_scan backward");

    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);

    @Override
    protected Backend backend() { return cuda; }

    @AfterEach
    void defaultVariant() { System.clearProperty(VARIANT); }

    @Test
    void theBackendHandsOutItsScanKernels() {
        assertEquals("CudaScanKernels", String.valueOf(FusedKernels.of(ScanKernels.FAMILY, cuda)));
    }

    @ParameterizedTest(name = "{0}: shape {1}x{2}x{3}, dim {4}, initial state {5}")
    @CsvSource({
            "block, 2, 1100, 1, 1, false", "grid, 2, 1100, 1, 1, true",
            "block, 1, 1030, 3, 1, true", "grid, 1, 1030, 3, 1, false",
            "block, 3, 2, 600, 2, true", "grid, 3, 2, 600, 2, true",
            "grid, 520, 2, 3, 0, false", "block, 5, 33, 7, 1, true"})
    void linearScanMatchesReferenceAcrossChunks(String variant, int d0, int d1, int d2, int dim, boolean initial) {
        System.setProperty(VARIANT, variant);
        long before = fallbacks();
        int[] shape = {d0, d1, d2}, slice = withoutDim(shape, dim);
        assertMatchesReference("linear scan " + variant, in -> Scans.linearScan(in.uniform(-1.05, 1.05, shape), in.randn(shape), dim,
                initial ? in.randn(slice) : null), SCAN);
        assertEquals(before, fallbacks(), "the scan kernels took every call");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"block", "grid"})
    void linearScanReadsStridedOperandsInPlace(String variant) {
        System.setProperty(VARIANT, variant);
        assertMatchesReference("linear scan transposed " + variant, in -> Scans.linearScan(
                in.uniform(-1, 1, 3, 700).t(), in.transposed(700, 3), 0, in.randn(6).slice(0, 0, 6, 2)), SCAN);
        assertMatchesReference("linear scan strided " + variant, in -> Scans.linearScan(
                in.strided(2, 530), in.randn(2, 1060).slice(1, 1, 1060, 2), 1), SCAN);
    }

    @Test
    void bothLinearScanVariantsAgreeOnTheSameInputs() {
        try (var s = Backends.use(cuda)) {
            Generator g = new Generator(3);
            Tensor a = Tensor.rand(g, 3, 1500).mul(1.9).sub(0.95), b = Tensor.randn(g, 3, 1500), h0 = Tensor.randn(g, 3);
            System.setProperty(VARIANT, "block");
            float[] block = Scans.linearScan(a, b, 1, h0).toFloatArray();
            System.setProperty(VARIANT, "grid");
            float[] grid = Scans.linearScan(a, b, 1, h0).toFloatArray();
            assertClose("block-local against grid-wide", block, grid, new Tolerance(1e-5, 1e-5));
        }
    }

    @ParameterizedTest(name = "batch {0}, d_inner {1}, L {2}, N {3}, groups {4}, z {5}, D {6}, bias {7}, softplus {8}, h0 {9}")
    @CsvSource({
            "2, 5, 300, 16, 0, true, true, true, true, true",
            "1, 6, 129, 4, 3, false, false, false, false, false",
            "2, 4, 257, 1, 2, true, false, true, false, true",
            "1, 2, 40, 64, 1, false, true, false, true, true",
            "1, 9, 128, 17, 0, true, true, true, true, false"})
    void selectiveScanMatchesReferenceAcrossChunksAndWarps(int batch, int channels, int len, int n, int groups, boolean gate,
                                                          boolean skip, boolean bias, boolean softplus, boolean initial) {
        long before = fallbacks();
        assertMatchesReference("selective scan", in -> {
            int[] bc = groups == 0 ? new int[] {batch, n, len} : new int[] {batch, groups, n, len};
            Tensor u = in.randn(batch, channels, len);
            Tensor delta = softplus ? in.randn(batch, channels, len) : in.uniform(0.01, 0.3, batch, channels, len);
            Tensor a = in.uniform(-2, -0.2, channels, n), b = in.randn(bc), c = in.randn(bc);
            Tensor d = skip ? in.randn(channels) : null, z = gate ? in.randn(batch, channels, len) : null;
            Tensor db = bias ? in.uniform(-0.5, 0.1, channels) : null, h0 = initial ? in.randn(batch, channels, n) : null;
            Scans.ScanOutput o = Scans.selectiveScan(u, delta, a, b, c, d, z, db, softplus, h0, true);
            return Tensor.cat(List.of(o.output().reshape(-1), o.lastState().reshape(-1)), 0);
        }, SCAN);
        assertEquals(before, fallbacks(), "the scan kernels took every call");
    }

    @Test
    void selectiveScanReadsStridedOperandsInPlace() {
        long before = fallbacks();
        assertMatchesReference("selective scan views", in -> {
            Tensor u = in.transposed(2, 5, 150);                                     // (batch, L, d_inner) seen as (batch, d_inner, L)
            Tensor delta = in.uniform(0.01, 0.3, 2, 5, 300).slice(2, 1, 300, 2);     // every other step
            Tensor a = in.uniform(-2, -0.2, 3, 5).transpose(0, 1);
            Tensor b = in.transposed(2, 3, 150), c = in.strided(2, 3, 150), z = in.transposed(2, 5, 150);
            Tensor h0 = in.transposed(2, 5, 3);
            return Scans.selectiveScan(u, delta, a, b, c, in.randn(5), z, in.randn(5), true, h0, false).output();
        }, SCAN);
        assertEquals(before, fallbacks(), "the scan kernels took every call");
    }

    @Test
    void moreStatesThanTheKernelsHoldRunTheReferenceAndSaySo() {
        long before = Fallbacks.count("selective_scan");
        assertMatchesReference("selective scan N 257", in -> Scans.selectiveScan(in.randn(1, 1, 3), in.randn(1, 1, 3),
                in.uniform(-2, -0.2, 1, 257), in.randn(1, 257, 3), in.randn(1, 257, 3), null, null, null, true), SCAN);
        assertTrue(Fallbacks.count("selective_scan") > before, "N = 257 is counted as a fallback");
    }

    /** The conformance kit with the linear scan forced to its grid-wide variant. */
    @Nested
    class GridWideLinearScan extends ScanConformance {
        @Override
        protected Backend backend() { return cuda; }

        @BeforeEach
        void gridWide() { System.setProperty(VARIANT, "grid"); }

        @AfterEach
        void defaultVariant() { System.clearProperty(VARIANT); }
    }

    private static int[] withoutDim(int[] shape, int dim) {
        int[] out = new int[shape.length - 1];
        for (int i = 0, j = 0; i < shape.length; i++) if (i != dim) out[j++] = shape[i];
        return out;
    }

    private static long fallbacks() {
        long n = 0;
        for (String op : OPS) n += Fallbacks.count(op);
        return n;
    }
}
