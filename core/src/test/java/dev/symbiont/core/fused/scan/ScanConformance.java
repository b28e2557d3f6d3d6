package dev.symbiont.core.fused.scan;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.conformance.ConformanceBase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The linear and selective scans, forward and every gradient, against the reference: L of 1
 * and L not a multiple of a kernel's chunk, N ∈ {1, 4, 16}, with and without z, D, deltaBias
 * and softplus, grouped B/C, and transposed or strided operands. Mamba-2's chunked SSD, y and
 * the final state and every gradient through both: the chunk dividing L or not, L ≤ Q, groups
 * below heads, with and without D and an initial state, and strided operands.
 */
public abstract class ScanConformance extends ConformanceBase {

    /** A recurrence over L steps sums L terms in float32. */
    private static final Tolerance SCAN = new Tolerance(1e-4, 1e-4);

    @ParameterizedTest(name = "shape {0}x{1}x{2}, dim {3}")
    @CsvSource({"3, 70, 5, 1", "1, 1, 4, 1", "2, 3, 130, 2", "4, 9, 1, 0"})
    void linearScanMatchesReferenceForwardAndBackward(int d0, int d1, int d2, int dim) {
        assertMatchesReference("linear scan", in -> Scans.linearScan(
                in.uniform(-1, 1, d0, d1, d2), in.randn(d0, d1, d2), dim), SCAN);
    }

    @ParameterizedTest(name = "shape {0}x{1}x{2}, dim {3}")
    @CsvSource({"3, 70, 5, 1", "2, 3, 130, 2", "4, 9, 1, 0"})
    void linearScanFromAnInitialStateMatchesReferenceForwardAndBackward(int d0, int d1, int d2, int dim) {
        int[] slice = dim == 0 ? new int[] {d1, d2} : dim == 1 ? new int[] {d0, d2} : new int[] {d0, d1};
        assertMatchesReference("linear scan from a state", in -> Scans.linearScan(
                in.uniform(-1, 1, d0, d1, d2), in.randn(d0, d1, d2), dim, in.randn(slice)), SCAN);
    }

    @ParameterizedTest(name = "layout {0}")
    @CsvSource({"transposed", "strided", "expanded"})
    void linearScanOnNonContiguousOperandsMatchesReference(String layout) {
        assertMatchesReference("linear scan " + layout, in -> Scans.linearScan(
                in.inLayout(layout, 3, 37), in.inLayout(layout, 3, 37), 1), SCAN);
    }

    @ParameterizedTest(name = "batch {0}, d_inner {1}, L {2}, N {3}, groups {4}, z {5}, D {6}, bias {7}, softplus {8}")
    @CsvSource({
            "2, 4, 7, 4, 0, true, true, true, true",
            "1, 3, 1, 1, 0, false, false, false, false",
            "2, 6, 33, 16, 3, true, false, true, true",
            "1, 4, 70, 4, 2, false, true, false, false",
            "2, 2, 130, 16, 1, true, true, true, false"})
    void selectiveScanMatchesReferenceForwardAndBackward(int batch, int channels, int len, int n, int groups,
                                                        boolean gate, boolean skip, boolean bias, boolean softplus) {
        assertMatchesReference("selective scan", in -> {
            int[] bc = groups == 0 ? new int[] {batch, n, len} : new int[] {batch, groups, n, len};
            Tensor u = in.randn(batch, channels, len);
            Tensor delta = softplus ? in.randn(batch, channels, len) : in.uniform(0.01, 0.5, batch, channels, len);
            Tensor a = in.uniform(-2, -0.2, channels, n);
            Tensor b = in.randn(bc), c = in.randn(bc);
            Tensor d = skip ? in.randn(channels) : null;
            Tensor z = gate ? in.randn(batch, channels, len) : null;
            Tensor db = bias ? in.uniform(-0.5, 0.1, channels) : null;
            return Scans.selectiveScan(u, delta, a, b, c, d, z, db, softplus);
        }, SCAN);
    }

    @ParameterizedTest(name = "L {0}, N {1}")
    @CsvSource({"1, 4", "70, 16", "33, 3"})
    void selectiveScanFromAnInitialStateMatchesReferenceForwardAndBackward(int len, int n) {
        assertMatchesReference("selective scan from a state", in -> Scans.selectiveScan(in.randn(2, 4, len),
                in.randn(2, 4, len), in.uniform(-2, -0.2, 4, n), in.randn(2, 2, n, len), in.randn(2, 2, n, len),
                in.randn(4), in.randn(2, 4, len), in.uniform(-0.5, 0.1, 4), true, in.randn(2, 4, n), false).output(), SCAN);
    }

    @ParameterizedTest(name = "softplus {0}")
    @CsvSource({"true", "false"})
    void selectiveScanOnTransposedAndStridedOperandsMatchesReference(boolean softplus) {
        assertMatchesReference("selective scan views", in -> {
            Tensor u = in.transposed(2, 5, 19);                              // (batch, L, d_inner) seen as (batch, d_inner, L)
            Tensor delta = in.uniform(0.01, 0.5, 2, 5, 39).slice(2, 1, 39, 2);    // every other step
            Tensor a = in.uniform(-2, -0.2, 4, 5).transpose(0, 1);
            Tensor b = in.transposed(2, 4, 19), c = in.strided(2, 4, 19);
            Tensor z = in.transposed(2, 5, 19);
            return Scans.selectiveScan(u, delta, a, b, c, in.randn(5), z, in.randn(5), softplus);
        }, SCAN);
    }

    @ParameterizedTest(name = "batch {0}, L {1}, heads {2}, P {3}, groups {4}, N {5}, chunk {6}, D {7}, h0 {8}")
    @CsvSource({
            "2, 11, 4, 3, 2, 5, 4, true, true",
            "1, 9, 3, 5, 1, 4, 9, false, false",
            "2, 1, 2, 2, 2, 3, 4, true, false",
            "1, 13, 2, 4, 1, 7, 5, false, true",
            "1, 6, 2, 3, 2, 2, 16, true, true"})
    void ssdChunkedMatchesReferenceForwardAndBackward(int batch, int len, int heads, int p, int groups, int n, int chunk,
                                                     boolean skip, boolean initial) {
        assertMatchesReference("ssd chunked", in -> ssdYAndFinalState(Scans.ssdChunked(in.randn(batch, len, heads, p),
                in.uniform(0.05, 0.6, batch, len, heads), in.uniform(-1.5, -0.2, heads), in.randn(batch, len, groups, n),
                in.randn(batch, len, groups, n), skip ? in.randn(heads) : null,
                initial ? in.randn(batch, heads, p, n) : null, chunk)), SCAN);
    }

    @ParameterizedTest(name = "chunk {0}")
    @CsvSource({"3", "8"})
    void ssdChunkedOnStridedOperandsMatchesReference(int chunk) {
        assertMatchesReference("ssd chunked views", in -> ssdYAndFinalState(Scans.ssdChunked(
                in.randn(2, 3, 7, 4).permute(0, 2, 1, 3), in.uniform(0.05, 0.6, 2, 3, 7).transpose(1, 2),
                in.uniform(-1.5, -0.2, 6).slice(0, 0, 6, 2), in.strided(2, 7, 1, 5), in.randn(2, 1, 7, 5).transpose(1, 2),
                in.randn(3), in.randn(2, 3, 5, 4).transpose(2, 3), chunk)), SCAN);
    }

    /** y and the final state flattened into one tensor, so the gradient weights reach both. */
    static Tensor ssdYAndFinalState(Scans.SsdOutput o) {
        return Tensor.cat(java.util.List.of(o.y().reshape(-1), o.finalState().reshape(-1)), 0);
    }
}
