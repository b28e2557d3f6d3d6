package dev.symbiont.cuda.fused;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.scan.Scans;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mamba-2's chunked SSD on its kernels ({@code ssd.cu}, {@code ssd_backward.cu}) on the PTX
 * interpreter against the reference backend: y, the final state and every gradient, over chunks
 * that cross the kernels' 16-wide tiles, L not a multiple of the chunk, P and N across a warp's
 * 32 lanes, groups below heads, with and without D and an initial state. Each case checks that
 * the kernels ran (launched on the interpreter), not the reference fallback. Tolerance: 2e-4 relative and absolute, float32
 * sums over a chunk (≤ 40 terms) and over P or N (≤ 35) against the reference's.
 */
class CudaSsdKernelsTest extends ConformanceBase {
    private static final Tolerance SSD = new Tolerance(2e-4, 2e-4);
    private static final String FORWARD = "ssd_chunked", BACKWARD = "ssd_chunked backward";

    private final InterpretedDriver driver = new InterpretedDriver();
    private final CudaBackend cuda = new CudaBackend(driver, 0);

    @Override
    protected Backend backend() { return cuda; }

    @ParameterizedTest(name = "batch {0}, L {1}, heads {2}, P {3}, groups {4}, N {5}, chunk {6}, D {7}, h0 {8}")
    @CsvSource({
            "2, 37, 4, 5, 2, 7, 16, true, true",      // three chunks, the last one padded; two heads a group
            "1, 40, 2, 33, 1, 17, 20, false, true",   // a chunk of 20 crosses a tile; P past a warp, N past a tile
            "1, 19, 3, 3, 3, 35, 32, true, false",    // L below the chunk: one chunk of 19; N past a warp
            "2, 9, 2, 4, 1, 4, 4, false, false"})
    void ssdChunkedMatchesReferenceOnItsKernels(int batch, int len, int heads, int p, int groups, int n, int chunk,
                                               boolean skip, boolean initial) {
        long forward = Fallbacks.count(FORWARD), backward = Fallbacks.count(BACKWARD);
        long scans = driver.launches("ssd_chunk_scan_f32"), dcums = driver.launches("ssd_dcum_f32");
        assertMatchesReference("ssd chunked", in -> yAndFinalState(Scans.ssdChunked(in.randn(batch, len, heads, p),
                in.uniform(0.05, 0.6, batch, len, heads), in.uniform(-1.5, -0.2, heads), in.randn(batch, len, groups, n),
                in.randn(batch, len, groups, n), skip ? in.randn(heads) : null,
                initial ? in.randn(batch, heads, p, n) : null, chunk)), SSD);
        assertEquals(forward, Fallbacks.count(FORWARD), "the forward ran its kernels");
        assertEquals(backward, Fallbacks.count(BACKWARD), "the backward ran its kernels");
        assertEquals(scans + 1, driver.launches("ssd_chunk_scan_f32"), "one chunk scan launched");
        assertEquals(dcums + 1, driver.launches("ssd_dcum_f32"), "one dcum launched");
    }

    @Test
    void onlyTheFinalStatesGradientReachesEveryInput() {
        long backward = Fallbacks.count(BACKWARD), passes = driver.launches("ssd_state_passing_backward_f32");
        assertMatchesReference("ssd chunked, final state", in -> Scans.ssdChunked(in.randn(1, 21, 2, 3),
                in.uniform(0.05, 0.6, 1, 21, 2), in.uniform(-1.5, -0.2, 2), in.randn(1, 21, 1, 4), in.randn(1, 21, 1, 4),
                in.randn(2), in.randn(1, 2, 3, 4), 8).finalState(), SSD);
        assertEquals(backward, Fallbacks.count(BACKWARD), "the backward ran its kernels");
        assertEquals(passes + 1, driver.launches("ssd_state_passing_backward_f32"), "the backward's state passing launched");
    }

    @Test
    void theBackwardGivesTheSameBitsEveryRun() {
        List<float[]> first = gradients(), second = gradients();
        for (int i = 0; i < first.size(); i++) assertArrayEquals(first.get(i), second.get(i), "gradient " + i);
    }

    @Test
    void aChunkAboveTheKernelsRunsTheReferenceAndSaysSo() {
        long before = Fallbacks.count(FORWARD);
        Generator g = new Generator(5);
        try (var on = Backends.use(cuda)) {
            Scans.SsdOutput o = Scans.ssdChunked(Tensor.randn(g, 1, 257, 1, 1), Tensor.rand(g, 1, 257, 1), Tensor.full(-0.5, 1),
                    Tensor.randn(g, 1, 257, 1, 1), Tensor.randn(g, 1, 257, 1, 1), null, null, 257);
            assertEquals(257, o.y().size(1));
        }
        assertTrue(Fallbacks.count(FORWARD) > before, "a chunk of 257 is counted as a fallback");
    }

    /** Every input's gradient of one fixed problem on the kernels. */
    private List<float[]> gradients() {
        try (var on = Backends.use(cuda)) {
            Generator g = new Generator(9);
            List<Tensor> in = List.of(Tensor.randn(g, 2, 23, 4, 6), Tensor.rand(g, 2, 23, 4).mul(0.5).add(0.05),
                    Tensor.rand(g, 4).sub(1.2), Tensor.randn(g, 2, 23, 2, 5), Tensor.randn(g, 2, 23, 2, 5), Tensor.randn(g, 4),
                    Tensor.randn(g, 2, 4, 6, 5));
            for (Tensor t : in) t.requiresGrad(true);
            Scans.SsdOutput o = Scans.ssdChunked(in.get(0), in.get(1), in.get(2), in.get(3), in.get(4), in.get(5), in.get(6), 8);
            yAndFinalState(o).backward(Tensor.randn(new Generator(3), 2 * 23 * 4 * 6 + 2 * 4 * 6 * 5));
            List<float[]> grads = new ArrayList<>();
            for (Tensor t : in) grads.add(t.grad().toFloatArray());
            return grads;
        }
    }

    private static Tensor yAndFinalState(Scans.SsdOutput o) {
        return Tensor.cat(List.of(o.y().reshape(-1), o.finalState().reshape(-1)), 0);
    }
}
