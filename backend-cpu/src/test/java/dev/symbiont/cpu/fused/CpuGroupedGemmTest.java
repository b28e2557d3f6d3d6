package dev.symbiont.cpu.fused;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.moe.MoeKernels.GroupedGrads;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmPath;
import dev.symbiont.cpu.gemm.GemmTiles;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The grouped GEMM as (expert, row tile, column tile) work items against the per-row loop it
 * computes and against one vector GEMM per expert, forward and both gradients, over uneven and
 * empty groups bigger than a tile in both directions ({@link GemmTiles#ROWS} × {@link GemmTiles#COLS})
 * and weights in both layouts.
 */
class CpuGroupedGemmTest {
    private static final CpuBackend CPU = new CpuBackend(GemmPath.VECTOR, true);
    // the last group spans two row tiles but stays below the depth at which one GEMM may split k (other bits)
    private static final long[] SIZES = {300, 0, 37, 1, GemmTiles.ROWS + 5};
    private static final int IN = 40, OUT = GemmTiles.COLS + 18;

    /** Output, dx, then each expert's dW (in, out), row-major. */
    private static List<float[]> run(boolean tiled) {
        try (var scope = Backends.use(CPU)) {
            CpuGroupedGemm grouped = new CpuGroupedGemm(new CpuTensors(CPU), Gemm.of(GemmPath.VECTOR), tiled);
            int rows = (int) java.util.Arrays.stream(SIZES).sum();
            Generator gen = new Generator(5);
            Tensor x = Tensor.randn(gen, rows, IN);
            Tensor g = Tensor.randn(gen, rows, OUT);
            List<Tensor> w = weights(gen);
            List<float[]> out = new ArrayList<>();
            out.add(grouped.forward(x, w, SIZES).toFloatArray());
            GroupedGrads grads = grouped.backward(g, x, w, SIZES);
            out.add(grads.dx().toFloatArray());
            for (Tensor dw : grads.dWeights()) out.add(dw.contiguous().toFloatArray());
            return out;
        }
    }

    /** Even experts: a Linear's (out, in) weight seen as (in, out); odd ones: a plain (in, out) weight. */
    private static List<Tensor> weights(Generator gen) {
        List<Tensor> w = new ArrayList<>();
        for (int e = 0; e < SIZES.length; e++) w.add(e % 2 == 0 ? Tensor.randn(gen, OUT, IN).t() : Tensor.randn(gen, IN, OUT));
        return w;
    }

    /** The same three results from loops over the rows in double: y_r = x_r·W_e, dx_r = g_r·W_eᵀ, dW_e = Σ_r x_rᵀ g_r. */
    private static List<float[]> perRowLoop() {
        try (var scope = Backends.use(CPU)) {
            int rows = (int) java.util.Arrays.stream(SIZES).sum();
            Generator gen = new Generator(5);
            float[] x = Tensor.randn(gen, rows, IN).toFloatArray(), g = Tensor.randn(gen, rows, OUT).toFloatArray();
            List<Tensor> ws = weights(gen);
            float[] y = new float[rows * OUT], dx = new float[rows * IN];
            List<float[]> out = new ArrayList<>(List.of(y, dx));
            int r0 = 0;
            for (int e = 0; e < SIZES.length; e++) {
                float[] w = ws.get(e).contiguous().toFloatArray(), dw = new float[IN * OUT];
                for (int r = r0; r < r0 + SIZES[e]; r++) {
                    for (int j = 0; j < OUT; j++) {
                        double s = 0;
                        for (int p = 0; p < IN; p++) s += (double) x[r * IN + p] * w[p * OUT + j];
                        y[r * OUT + j] = (float) s;
                    }
                    for (int p = 0; p < IN; p++) {
                        double s = 0;
                        for (int j = 0; j < OUT; j++) s += (double) g[r * OUT + j] * w[p * OUT + j];
                        dx[r * IN + p] = (float) s;
                    }
                }
                for (int p = 0; p < IN; p++) {
                    for (int j = 0; j < OUT; j++) {
                        double s = 0;
                        for (int r = r0; r < r0 + SIZES[e]; r++) s += (double) x[r * IN + p] * g[r * OUT + j];
                        dw[p * OUT + j] = (float) s;
                    }
                }
                out.add(dw);
                r0 += (int) SIZES[e];
            }
            return out;
        }
    }

    @Test
    void tiledGroupedGemmMatchesThePerRowLoopForwardAndBothGradients() {
        List<float[]> expected = perRowLoop(), actual = run(true);
        for (int i = 0; i < expected.size(); i++) {
            float[] e = expected.get(i), a = actual.get(i);
            double tol = 1e-4 * Math.sqrt(i == 0 ? IN : i == 1 ? OUT : GemmTiles.ROWS + 5);
            for (int j = 0; j < e.length; j++) {
                if (Math.abs(e[j] - a[j]) > tol * Math.max(1, Math.abs(e[j]))) fail("result " + i + "[" + j + "]: tiled " + a[j] + ", loop " + e[j]);
            }
        }
    }

    @Test
    void tiledGroupedGemmGivesBitForBitTheResultsOfOneGemmPerExpert() {
        List<float[]> perExpert = run(false), tiled = run(true);
        for (int i = 0; i < perExpert.size(); i++) assertArrayEquals(perExpert.get(i), tiled.get(i), "result " + i);
    }

    @Test
    void tilesAreRefusedOnAGemmThatHasNone() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> new CpuGroupedGemm(new CpuTensors(CPU), Gemm.of(GemmPath.EJML), true));
        if (!e.getMessage().contains("grouped_matmul")) fail(e.getMessage());
    }
}
