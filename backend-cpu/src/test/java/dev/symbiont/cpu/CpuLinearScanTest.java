package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradCheck;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.fused.scan.Scans;
import dev.symbiont.cpu.gemm.GemmPath;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The linear scan's row kernels — a row of channels per step on the Vector API, and their
 * plain-Java twin — against the scan family's reference, forward and every gradient within
 * 1e-4: channel counts that are not a whole number of vectors (a vector body and a scalar tail),
 * L of 1, the scan along the first, a middle and the last dim of a 4-D tensor, transposed
 * operands, an initial state, and one of a and b requiring a gradient; and finite differences
 * through the CPU kernels themselves.
 */
class CpuLinearScanTest {
    private static final double MAX_ABS_ERROR = 1e-4;
    private static final CpuBackend VECTOR = new CpuBackend();
    private static final CpuBackend SCALAR = new CpuBackend(GemmPath.EJML, false);

    /**
     * h and the gradients of a, b and (when {@code initial}) the initial state of a scan along
     * {@code dim} of {@code shape}; null for a gradient not asked for.
     */
    private static List<float[]> run(CpuBackend backend, int[] shape, int dim, boolean transposed, boolean initial,
                                     boolean gradA, boolean gradB) {
        try (var scope = Backends.use(backend)) {
            Generator g = new Generator(31L * shape.length + 7L * dim + shape[shape.length - 1]);
            Tensor a = operand(Tensor.rand(g, flip(shape, transposed)).mul(2).sub(1), transposed).requiresGrad(gradA);
            Tensor b = operand(Tensor.randn(g, flip(shape, transposed)), transposed).requiresGrad(gradB);
            int[] slice = new int[shape.length - 1];
            for (int i = 0, j = 0; i < shape.length; i++) if (i != dim) slice[j++] = shape[i];
            Tensor h0 = initial ? Tensor.randn(g, slice).requiresGrad(true) : null;
            Tensor h = Scans.linearScan(a, b, dim, h0);
            h.backward(Tensor.randn(g, shape));
            List<float[]> out = new ArrayList<>();
            out.add(h.toFloatArray());
            for (Tensor t : new Tensor[] {a, b, h0}) out.add(t == null || t.grad() == null ? null : t.grad().toFloatArray());
            return out;
        }
    }

    /** The shape with its last two dims swapped, when the operand is made transposed. */
    private static int[] flip(int[] shape, boolean transposed) {
        int[] s = shape.clone();
        if (transposed) {
            int n = s.length;
            s[n - 1] = shape[n - 2];
            s[n - 2] = shape[n - 1];
        }
        return s;
    }

    private static Tensor operand(Tensor t, boolean transposed) {
        Tensor leaf = transposed ? t.transpose(t.dim() - 2, t.dim() - 1) : t;
        return leaf.detach();
    }

    private static List<float[]> reference(int[] shape, int dim, boolean transposed, boolean initial, boolean gradA, boolean gradB) {
        try (Scope forced = FusedKernels.forceReference(ScanKernels.FAMILY)) {
            return run(VECTOR, shape, dim, transposed, initial, gradA, gradB);
        }
    }

    private static void assertMatches(String what, List<float[]> expected, List<float[]> actual) {
        String[] names = {"h", "da", "db", "dh0"};
        for (int k = 0; k < names.length; k++) {
            float[] e = expected.get(k), v = actual.get(k);
            if (e == null || v == null) {
                assertEquals(e == null, v == null, what + ": " + names[k] + " present");
                continue;
            }
            assertEquals(e.length, v.length, what + ": " + names[k] + " length");
            for (int i = 0; i < e.length; i++) {
                if (!(Math.abs(e[i] - v[i]) <= MAX_ABS_ERROR)) {
                    fail(what + ": " + names[k] + " element " + i + " is " + v[i] + ", reference " + e[i]);
                }
            }
        }
    }

    private static int[] shape(String dims) {
        String[] parts = dims.split("x");
        int[] s = new int[parts.length];
        for (int i = 0; i < parts.length; i++) s[i] = Integer.parseInt(parts[i]);
        return s;
    }

    @ParameterizedTest(name = "shape {0}, dim {1}, transposed {2}, initial state {3}, grad a {4}, grad b {5}")
    @CsvSource({
            // whole rows of 8-lane vectors plus a tail of 5; 4 rows fill the cores, so each task walks a whole row
            "4x33x13, 1, false, false, true, true",
            "4x33x13, 1, false, true, true, true",
            "5x40x130, 1, false, true, true, true",
            // one row: the channels split into blocks, each with its own tail
            "1x50x203, 1, false, true, true, true",
            // L = 1: only the first step (da = gh·h0, or 0)
            "4x1x19, 1, false, false, true, true",
            "4x1x19, 1, false, true, true, true",
            // along the first, a middle and the last dim of a 4-D tensor
            "6x3x4x11, 0, false, true, true, true",
            "3x4x6x11, 2, false, true, true, true",
            "3x4x5x9, 3, false, true, true, true",
            // transposed operands, copied to rows first
            "3x17x12, 1, true, true, true, true",
            "2x12x17, 2, true, false, true, true",
            // one of a and b requires a gradient: the adjoint's carry is a row of its own without db
            "4x33x13, 1, false, true, true, false",
            "4x33x13, 1, false, false, false, true",
            "1x50x203, 1, false, true, true, false"})
    void rowKernelsAndTheirTwinMatchTheReference(String dims, int dim, boolean transposed, boolean initial,
                                                 boolean gradA, boolean gradB) {
        int[] shape = shape(dims);
        List<float[]> expected = reference(shape, dim, transposed, initial, gradA, gradB);
        String what = dims + " along " + dim;
        assertMatches(what + " (vector)", expected, run(VECTOR, shape, dim, transposed, initial, gradA, gradB));
        assertMatches(what + " (scalar)", expected, run(SCALAR, shape, dim, transposed, initial, gradA, gradB));
        if (!gradA) assertNull(expected.get(1), "no da without a's requiresGrad");
    }

    @ParameterizedTest(name = "vector kernels {0}")
    @ValueSource(booleans = {true, false})
    void cpuKernelGradientsMatchFiniteDifferences(boolean vector) {
        CpuBackend backend = vector ? VECTOR : SCALAR;
        Generator gen = new Generator(12);
        // 11 channels: one 8-lane vector and a tail of 3
        GradCheck.check("linear scan on the cpu (vector " + vector + ")", backend,
                in -> Scans.linearScan(in.get(0), in.get(1), 1, in.get(2)),
                GradCheck.uniform(gen, -1, 1, 2, 5, 11), GradCheck.randn(gen, 1, 2, 5, 11), GradCheck.randn(gen, 1, 2, 11));
    }
}
