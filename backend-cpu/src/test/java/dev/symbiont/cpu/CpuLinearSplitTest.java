package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.cpu.gemm.GemmPath;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The CPU's linear_split gives the bits of one linear per group on W's rows (the fused qkv
 * projection as three products of narrowed weights) — outputs and every gradient, with a group
 * left without a gradient too — so attention that switches to it trains along the same trajectory.
 */
class CpuLinearSplitTest {

    @ParameterizedTest(name = "rows {0}, in {1}, groups {2}, unused group {3}")
    @CsvSource({"37, 19, 5 3 3, -1", "64, 128, 128 32 32, -1", "130, 33, 40 70 9, 1", "7, 256, 256 256 256, 0"})
    void splitEqualsOneLinearPerGroupToTheBit(int rows, int in, String groups, int unused) {
        int[] sizes = java.util.Arrays.stream(groups.split(" ")).mapToInt(Integer::parseInt).toArray();
        int out = java.util.Arrays.stream(sizes).sum();
        for (Backend backend : List.of(new CpuBackend(), new CpuBackend(GemmPath.EJML, false))) {
            try (var use = Backends.use(backend)) {
                Generator g = new Generator(rows * 31L + in);
                Tensor x = Tensor.randn(g, 2, rows, in).requiresGrad(true);
                Tensor w = Tensor.randn(g, out, in).requiresGrad(true), b = Tensor.randn(g, out).requiresGrad(true);
                Tensor[] fused = Linears.linearSplit(x, w, b, sizes);
                Tensor gradY = Tensor.randn(g, 2, rows, out - (unused < 0 ? 0 : sizes[unused]));
                consume(fused, unused).mul(gradY).sum().backward();
                float[][] fusedGrads = {x.grad().toFloatArray(), w.grad().toFloatArray(), b.grad().toFloatArray()};
                x.zeroGrad();
                w.zeroGrad();
                b.zeroGrad();
                Tensor[] separate = new Tensor[sizes.length];
                for (int i = 0, from = 0; i < sizes.length; from += sizes[i++]) {
                    separate[i] = Linears.linear(x, w.narrow(0, from, sizes[i]), b.narrow(0, from, sizes[i]));
                }
                consume(separate, unused).mul(gradY).sum().backward();
                String what = backend + " " + rows + "x" + in + "→" + groups;
                for (int i = 0; i < sizes.length; i++) {
                    assertArrayEquals(new int[] {2, rows, sizes[i]}, fused[i].shape(), what + " group " + i + " shape");
                    assertArrayEquals(separate[i].toFloatArray(), fused[i].toFloatArray(), what + " group " + i);
                }
                assertEquals(1, java.util.Arrays.stream(fused).map(Tensor::storage).distinct().count(), what + ": one output buffer");
                assertArrayEquals(x.grad().toFloatArray(), fusedGrads[0], what + " input gradient");
                assertArrayEquals(w.grad().toFloatArray(), fusedGrads[1], what + " weight gradient");
                assertArrayEquals(b.grad().toFloatArray(), fusedGrads[2], what + " bias gradient");
            }
        }
    }

    /** The groups side by side in one op (as attention takes q, k and v), without group {@code unused} (−1: all). */
    private static Tensor consume(Tensor[] groups, int unused) {
        List<Tensor> used = new ArrayList<>();
        for (int i = 0; i < groups.length; i++) if (i != unused) used.add(groups[i]);
        return Tensor.cat(used, -1);
    }
}
