package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.core.fused.scan.Scans;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * The CPU kernels that take unzeroed output buffers from the pool write every element: with the
 * pool full of NaN-filled arrays of exactly the output sizes (and, in the poison run, every
 * unzeroed buffer NaN from the start) each op gives what it gives on fresh arrays, and no NaN.
 */
class CpuUnzeroedOutputsTest {
    private final CpuBackend cpu = new CpuBackend();
    private final Generator g = new Generator(11);

    /** Leaves {@code copies} NaN-filled idle arrays of each size in the pool. */
    private void dirty(int copies, int... sizes) {
        List<Storage> held = new ArrayList<>();
        for (int n : sizes) {
            for (int c = 0; c < copies; c++) {
                Storage s = cpu.empty(DType.FLOAT32, n);
                Arrays.fill(HeapStorage.of(s).floats(), Float.NaN);
                held.add(s);
            }
        }
        held.forEach(Storage::release);
    }

    /** The op's values on fresh arrays, then on the dirty pool's: equal, and NaN-free. */
    private void assertWritesEveryElement(String op, Supplier<Tensor[]> run, int... sizes) {
        try (var use = Backends.use(cpu)) {
            cpu.pool().clear();
            Tensor[] fresh = run.get();
            dirty(3, sizes);
            Tensor[] reused = run.get();
            for (int i = 0; i < fresh.length; i++) {
                float[] values = reused[i].toFloatArray();
                for (float v : values) assertFalse(Float.isNaN(v), op + ": output " + i + " has an unwritten element");
                assertArrayEquals(fresh[i].toFloatArray(), values, 1e-6f, op + ": output " + i);
            }
        }
    }

    @Test
    void primitivesOverwriteTheirOutputs() {
        Tensor a, b, x, bias, rows, host;
        try (var use = Backends.use(cpu)) {
            a = Tensor.randn(g, 64, 96);
            b = Tensor.randn(g, 96, 80);
            x = Tensor.randn(g, 80, 64);
            bias = Tensor.randn(g, 64);
            rows = Tensor.randn(g, 3, 5000);
            host = Tensor.randn(g, 5001);
        }
        float[] hostValues = host.toFloatArray();
        assertWritesEveryElement("matmul", () -> new Tensor[] {a.matmul(b)}, 64 * 80);
        assertWritesEveryElement("unary", () -> new Tensor[] {x.exp()}, 80 * 64);
        assertWritesEveryElement("binary", () -> new Tensor[] {x.add(bias)}, 80 * 64);
        assertWritesEveryElement("reduce", () -> new Tensor[] {rows.sum(0, false)}, 5000);
        assertWritesEveryElement("random", () -> new Tensor[] {Tensor.randn(new Generator(4), 5000)}, 5000);
        assertWritesEveryElement("contiguous", () -> new Tensor[] {x.transpose(0, 1).contiguous()}, 80 * 64);
        assertWritesEveryElement("upload", () -> new Tensor[] {Tensor.fromArray(hostValues)}, 5001);
    }

    @Test
    void theLinearScanOverwritesItsOutputAndGradients() {
        // (2, 64, 64) walks columns; (1, 4096, 2) is long and narrow, the chunked kernel's case
        for (int[] shape : new int[][] {{2, 64, 64}, {1, 4096, 2}}) {
            Tensor a, b, gradH;
            try (var use = Backends.use(cpu)) {
                a = Tensor.rand(g, shape).mul(0.5).add(0.5).requiresGrad(true);
                b = Tensor.randn(g, shape).requiresGrad(true);
                gradH = Tensor.randn(g, shape);
            }
            int n = a.numel();
            assertWritesEveryElement("linear_scan " + Arrays.toString(shape), () -> {
                a.zeroGrad();
                b.zeroGrad();
                Tensor h = Scans.linearScan(a, b, 1);
                h.backward(gradH);
                return new Tensor[] {h, a.grad(), b.grad()};
            }, n);
        }
    }

    @Test
    void linearOverwritesItsOutputAndGradients() {
        Tensor x, w, bias, gradY;
        try (var use = Backends.use(cpu)) {
            x = Tensor.randn(g, 64, 96).requiresGrad(true);
            w = Tensor.randn(g, 80, 96).requiresGrad(true);
            bias = Tensor.randn(g, 80).requiresGrad(true);
            gradY = Tensor.randn(g, 64, 80);
        }
        assertWritesEveryElement("linear", () -> {
            x.zeroGrad();
            w.zeroGrad();
            bias.zeroGrad();
            Tensor y = Linears.linear(x, w, bias);
            y.backward(gradY);
            return new Tensor[] {y, x.grad(), w.grad(), bias.grad()};
        }, 64 * 80, 64 * 96, 80 * 96);
    }
}
