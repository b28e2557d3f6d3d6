package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.memory.MemoryTracker;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.fused.scan.Scans;
import dev.symbiont.cpu.gemm.GemmPath;
import dev.symbiont.cpu.kernels.LinearRecurrence;
import dev.symbiont.cpu.kernels.ScanMath;
import dev.symbiont.cpu.kernels.SelectiveScan;
import dev.symbiont.cpu.kernels.TreeScans;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The CPU scans against the scan family's reference on the same backend (forced with
 * {@link FusedKernels#forceReference}): the fused selective scan's output, last state and all
 * eight gradients, and the sequential and chunked linear scans forward and backward, within
 * 1e-4 — over L of 1, L on and off the checkpoint chunk, N ∈ {1, 4, 16}, with and without z, D,
 * deltaBias and softplus, grouped B/C and non-contiguous operands. And the point of it all:
 * peak memory. The selective scan runs its steps on the Vector API (N of 1, 4, 12 and 20 padded
 * to whole vectors, 16 filling two) and on its scalar twin.
 */
class CpuScanTest {
    private static final double MAX_ABS_ERROR = 1e-4;
    private static final CpuBackend CPU = new CpuBackend();
    /** Without the vector kernels: ΔA's exp on the scalar twin. */
    private static final CpuBackend SCALAR = new CpuBackend(GemmPath.EJML, false);
    /** The linear recurrence's rows on the Vector API, as the default backend runs them. */
    private static final ScanMath VECTOR_ROWS = ScanMath.of(true);

    /** One selective-scan case; groups 0 means 3-D B and C; initial: from a random initial state. */
    private record Case(int batch, int channels, int len, int n, int groups, boolean z, boolean d, boolean bias,
                        boolean softplus, boolean views, boolean initial) {}

    /** Output, last state, and the gradient of each present input, in argument order. */
    private static List<float[]> selective(Case c, CpuBackend backend) {
        try (var scope = Backends.use(backend)) {
            Generator g = new Generator(c.len() * 131L + c.n() * 17L + c.channels());
            int[] bc = c.groups() == 0 ? new int[] {c.batch(), c.n(), c.len()} : new int[] {c.batch(), c.groups(), c.n(), c.len()};
            List<Tensor> leaves = new ArrayList<>();
            Tensor u = leaf(leaves, c.views() ? Tensor.randn(g, c.batch(), c.len(), c.channels()).transpose(1, 2)
                    : Tensor.randn(g, c.batch(), c.channels(), c.len()));
            Tensor delta = leaf(leaves, c.softplus() ? Tensor.randn(g, c.batch(), c.channels(), c.len())
                    : Tensor.rand(g, c.batch(), c.channels(), c.len()).mul(0.5).add(0.01));
            Tensor a = leaf(leaves, c.views() ? Tensor.rand(g, c.n(), c.channels()).mul(-1.8).sub(0.2).transpose(0, 1)
                    : Tensor.rand(g, c.channels(), c.n()).mul(-1.8).sub(0.2));
            Tensor b = leaf(leaves, Tensor.randn(g, bc));
            Tensor cc = leaf(leaves, c.views() ? strided(g, bc) : Tensor.randn(g, bc));
            Tensor d = c.d() ? leaf(leaves, Tensor.randn(g, c.channels())) : null;
            Tensor z = c.z() ? leaf(leaves, Tensor.randn(g, c.batch(), c.channels(), c.len())) : null;
            Tensor bias = c.bias() ? leaf(leaves, Tensor.rand(g, c.channels()).mul(0.6).sub(0.5)) : null;
            Tensor h0 = c.initial() ? leaf(leaves, c.views() ? Tensor.randn(g, c.batch(), c.n(), c.channels()).transpose(1, 2)
                    : Tensor.randn(g, c.batch(), c.channels(), c.n())) : null;
            Tensor gradOut = Tensor.randn(g, c.batch(), c.channels(), c.len());
            Scans.ScanOutput r = Scans.selectiveScan(u, delta, a, b, cc, d, z, bias, c.softplus(), h0, true);
            r.output().backward(gradOut);
            List<float[]> out = new ArrayList<>(List.of(r.output().toFloatArray(), r.lastState().toFloatArray()));
            for (Tensor t : leaves) out.add(t.grad().toFloatArray());
            return out;
        }
    }

    private static Tensor leaf(List<Tensor> leaves, Tensor t) {
        Tensor leaf = t.detach().requiresGrad(true); // keeps t's strides
        leaves.add(leaf);
        return leaf;
    }

    /** Every other element along L: a non-contiguous (…, L) operand. */
    private static Tensor strided(Generator g, int[] shape) {
        int[] wide = shape.clone();
        wide[wide.length - 1] = 2 * shape[shape.length - 1];
        return Tensor.randn(g, wide).slice(wide.length - 1, 0, wide[wide.length - 1], 2);
    }

    private static void assertMatches(String what, List<float[]> expected, List<float[]> actual) {
        String[] names = {"out", "last state", "du", "ddelta", "dA", "dB", "dC", "then the optional grads"};
        assertEquals(expected.size(), actual.size(), what + ": outputs");
        for (int k = 0; k < expected.size(); k++) {
            float[] e = expected.get(k), a = actual.get(k);
            assertEquals(e.length, a.length, what + ": " + names[Math.min(k, names.length - 1)] + " length");
            for (int i = 0; i < e.length; i++) {
                // 1e-4 absolute up to magnitude 1, relative beyond: float32 holds 7 digits, and a
                // growing recurrence (dt·A > 0 without softplus) reaches values in the thousands.
                if (!(Math.abs(e[i] - a[i]) <= MAX_ABS_ERROR * Math.max(1, Math.abs(e[i])))) {
                    fail(what + ": " + (k < names.length - 1 ? names[k] : "optional grad " + (k - 7)) + " element " + i
                            + " is " + a[i] + ", reference " + e[i]);
                }
            }
        }
    }

    private static List<float[]> reference(Case c) {
        try (Scope forced = FusedKernels.forceReference(ScanKernels.FAMILY)) {
            return selective(c, CPU);
        }
    }

    @ParameterizedTest(name = "batch {0}, d_inner {1}, L {2}, N {3}, groups {4}, z {5}, D {6}, bias {7}, softplus {8}, views {9}, initial state {10}")
    @CsvSource({
            "2, 3, 1, 4, 0, true, true, true, true, false, true",
            "1, 4, 1, 1, 0, false, false, false, false, false, false",
            "2, 4, 64, 16, 2, true, true, true, true, false, false",
            "2, 6, 65, 16, 3, false, true, false, true, false, true",
            "1, 5, 200, 4, 0, true, false, true, false, false, false",
            "2, 4, 131, 1, 4, false, false, true, true, true, false",
            "2, 6, 97, 16, 2, true, true, true, true, true, true",
            "3, 8, 150, 4, 1, true, true, false, false, true, false",
            "2, 4, 70, 20, 2, true, true, true, true, false, true",
            "1, 3, 129, 12, 0, true, true, true, true, true, false"})
    void fusedSelectiveScanMatchesTheReference(int batch, int channels, int len, int n, int groups, boolean z, boolean d,
                                               boolean bias, boolean softplus, boolean views, boolean initial) {
        Case c = new Case(batch, channels, len, n, groups, z, d, bias, softplus, views, initial);
        List<float[]> expected = reference(c);
        assertMatches(c + " (vector)", expected, selective(c, CPU));
        assertMatches(c + " (scalar)", expected, selective(c, SCALAR));
    }

    // ---- linear scans --------------------------------------------------------------------------

    /** h, da, db of a linear scan along dim 1 of (outer, len, inner), through the op on the CPU. */
    private static List<float[]> linear(int outer, int len, int inner, boolean transposed) {
        return linear(outer, len, inner, transposed, false);
    }

    /** h, da, db, and dh0 when {@code initial}, of a linear scan along dim 1 from a random initial state or 0. */
    private static List<float[]> linear(int outer, int len, int inner, boolean transposed, boolean initial) {
        try (var scope = Backends.use(CPU)) {
            Generator g = new Generator(len * 7L + inner);
            Tensor a = transposed ? Tensor.rand(g, outer, inner, len).mul(2).sub(1).transpose(1, 2)
                    : Tensor.rand(g, outer, len, inner).mul(2).sub(1);
            Tensor b = transposed ? Tensor.randn(g, outer, inner, len).transpose(1, 2) : Tensor.randn(g, outer, len, inner);
            a = a.detach().requiresGrad(true);
            b = b.detach().requiresGrad(true);
            Tensor h0 = initial ? Tensor.randn(g, inner, outer).transpose(0, 1).detach().requiresGrad(true) : null;
            Tensor h = Scans.linearScan(a, b, 1, h0);
            h.backward(Tensor.randn(g, outer, len, inner));
            List<float[]> out = new ArrayList<>(List.of(h.toFloatArray(), a.grad().toFloatArray(), b.grad().toFloatArray()));
            if (initial) out.add(h0.grad().toFloatArray());
            return out;
        }
    }

    @ParameterizedTest(name = "({0}, {1}, {2}), transposed {3}, initial state {4}")
    @CsvSource({"3, 70, 5, false, false", "1, 1, 1, false, false", "2, 1, 9, true, false", "1, 5000, 1, false, false",
            "2, 2100, 3, true, false", "4, 33, 130, false, false", "3, 70, 5, true, true", "1, 1, 1, false, true",
            "1, 5000, 1, false, true", "2, 2100, 3, true, true"})
    void linearScanMatchesTheReferenceForwardAndBackward(int outer, int len, int inner, boolean transposed, boolean initial) {
        List<float[]> expected;
        try (Scope forced = FusedKernels.forceReference(ScanKernels.FAMILY)) {
            expected = linear(outer, len, inner, transposed, initial);
        }
        List<float[]> actual = linear(outer, len, inner, transposed, initial);
        assertEquals(expected.size(), actual.size(), "outputs");
        for (int k = 0; k < expected.size(); k++) assertClose("linear scan output " + k, expected.get(k), actual.get(k));
    }

    @ParameterizedTest(name = "({0}, {1}, {2}), a requires grad {3}")
    @CsvSource({"2, 40, 70, true", "2, 40, 70, false", "1, 3000, 1, true", "1, 3000, 1, false"})
    void linearScanBackwardComputesOnlyTheWantedGradient(int outer, int len, int inner, boolean wantA) {
        List<float[]> all = linear(outer, len, inner, false);
        try (var scope = Backends.use(CPU)) {
            Generator g = new Generator(len * 7L + inner);
            Tensor a = Tensor.rand(g, outer, len, inner).mul(2).sub(1).detach().requiresGrad(wantA);
            Tensor b = Tensor.randn(g, outer, len, inner).detach().requiresGrad(!wantA);
            Scans.linearScan(a, b, 1).backward(Tensor.randn(g, outer, len, inner));
            Tensor wanted = wantA ? a : b, other = wantA ? b : a;
            assertClose("the wanted gradient", all.get(wantA ? 1 : 2), wanted.grad().toFloatArray());
            assertEquals(null, other.grad(), "the input without requiresGrad gets no gradient");
        }
    }

    @ParameterizedTest(name = "({0}, {1}, {2}), {3} chunks, reverse {4}")
    @CsvSource({"1, 1000, 1, 7, false", "1, 1000, 1, 7, true", "2, 257, 3, 4, false", "3, 31, 2, 31, true",
            "1, 5, 4, 8, false", "2, 64, 65, 3, true"})
    void chunkedLinearScanEqualsTheSequentialOne(int outer, int len, int inner, int chunks, boolean reverse) {
        var dims = new LinearRecurrence.Dims(outer, len, inner, reverse);
        float[] a = Differential.random(1, outer * len * inner, 1f), x = Differential.random(2, outer * len * inner, 1f);
        float[] seq = new float[a.length], chunked = new float[a.length];
        LinearRecurrence.sequential(VECTOR_ROWS, dims, new LinearRecurrence.Run(a, 0), new LinearRecurrence.Run(x, 0), seq);
        LinearRecurrence.chunked(VECTOR_ROWS, dims, new LinearRecurrence.Run(a, 0), new LinearRecurrence.Run(x, 0), chunked, chunks);
        assertClose("chunked vs sequential", seq, chunked);
    }

    @ParameterizedTest(name = "({0}, {1}, {2})")
    @CsvSource({"1, 1, 1", "1, 2, 1", "2, 7, 3", "1, 64, 1", "3, 100, 2", "1, 1000, 4"})
    void treeScansEqualTheSequentialOneAndSpendWhatTheirAlgorithmsPromise(int outer, int len, int inner) {
        var dims = new LinearRecurrence.Dims(outer, len, inner, false);
        float[] a = Differential.random(3, outer * len * inner, 1f), x = Differential.random(4, outer * len * inner, 1f);
        var ra = new LinearRecurrence.Run(a, 0);
        var rx = new LinearRecurrence.Run(x, 0);
        float[] seq = new float[a.length], hs = new float[a.length], bl = new float[a.length];
        LinearRecurrence.sequential(VECTOR_ROWS, dims, ra, rx, seq);
        TreeScans.Cost hillis = TreeScans.hillisSteele(dims, ra, rx, hs);
        TreeScans.Cost blelloch = TreeScans.blelloch(dims, ra, rx, bl);
        assertClose("Hillis–Steele vs sequential", seq, hs);
        assertClose("Blelloch vs sequential", seq, bl);
        int log = len <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(len - 1);       // ⌈log₂ len⌉
        assertEquals(log, hillis.steps(), "Hillis–Steele rounds");
        assertTrue(hillis.combines() <= (long) len * log, "Hillis–Steele work " + hillis.combines());
        assertEquals(2L * log + 1, blelloch.steps(), "Blelloch rounds (up, down, and the final combine)");
        assertTrue(blelloch.combines() <= 3L * (1L << log), "Blelloch work " + blelloch.combines() + " is O(n)");
    }

    private static void assertClose(String what, float[] e, float[] a) {
        assertEquals(e.length, a.length, what + ": length");
        for (int i = 0; i < e.length; i++) {
            if (!(Math.abs(e[i] - a[i]) <= MAX_ABS_ERROR)) fail(what + ": element " + i + " is " + a[i] + ", expected " + e[i]);
        }
    }

    // ---- memory ----------------------------------------------------------------------------------

    /**
     * L 4096, batch 1, d_inner 256, N 16: each (batch, d_inner, L, N) tensor is 64 MiB. The
     * reference's backward, while it stacks the adjoint states, still holds ΔA, ΔB·u, the states,
     * B per channel and the L adjoint steps (six of them, read off {@code ReferenceScan}); the
     * fused kernel holds its inputs, output, gradients, a state every {@link SelectiveScan#CHUNK}
     * steps and at most 16 (batch, N, L) partials of dB and dC.
     *
     * <p>The fused peak is counted exactly ({@link MemoryTracker#exactPeaks}). The reference's is
     * not: exact accounting runs a collection per allocation, and the reference allocates a
     * state per step. Its ordinary count is an upper bound, so the test checks the fused peak
     * against the floor the reference provably reaches (those six tensors), and that the
     * reference's count does reach it.
     */
    @Test
    void fusedForwardAndBackwardPeakUnderAnEighthOfTheReference() {
        int batch = 1, channels = 256, len = 4096, n = 16;
        long floor = 6L * batch * channels * len * n * Float.BYTES;
        long reference;
        try (Scope forced = FusedKernels.forceReference(ScanKernels.FAMILY)) {
            reference = peakBytes(batch, channels, len, n, false);
        }
        long fused = peakBytes(batch, channels, len, n, true);
        assertTrue(reference >= floor, "the reference holds ΔA, ΔB·u and the states: " + reference + " B vs " + floor);
        assertTrue(fused * 8 < floor, "fused peak " + fused + " B vs the reference's floor " + floor + " B (measured " + reference + ")");
    }

    /** Peak bytes of one forward + backward, inputs and gradients included. */
    private static long peakBytes(int batch, int channels, int len, int n, boolean exact) {
        try (var scope = Backends.use(CPU); Scope counting = exact ? MemoryTracker.exactPeaks() : () -> { }) {
            Generator g = new Generator(3);
            Tensor u = Tensor.randn(g, batch, channels, len).requiresGrad(true);
            Tensor delta = Tensor.randn(g, batch, channels, len).requiresGrad(true);
            Tensor a = Tensor.rand(g, channels, n).mul(-1).sub(0.1).detach().requiresGrad(true);
            Tensor b = Tensor.randn(g, batch, n, len).requiresGrad(true);
            Tensor c = Tensor.randn(g, batch, n, len).requiresGrad(true);
            Tensor d = Tensor.randn(g, channels).requiresGrad(true);
            Tensor gradOut = Tensor.randn(g, batch, channels, len);
            MemoryTracker.collectGarbage();
            CPU.resetPeakMemory();
            Tensor out = Scans.selectiveScan(u, delta, a, b, c, d, null, null, true);
            out.backward(gradOut);
            return CPU.memory().peakBytes();
        }
    }
}
