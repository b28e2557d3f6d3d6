package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.heap.HeapStorage;
import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.cpu.fused.CpuConv;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.kernels.ConvTaps;
import dev.symbiont.cpu.kernels.Im2colTiles;
import dev.symbiont.cpu.kernels.Parallel;
import dev.symbiont.cpu.kernels.Rows;
import dev.symbiont.cpu.kernels.TileMath;

import java.util.Arrays;
import java.util.Locale;

/**
 * Where conv2d's time goes at {@link ConvBenchmark}'s 3×3 shape (16, 64, 56, 56) → 64, padding 1:
 * the whole kernels (forward; backward with only the input, only the weight, only the bias
 * gradient, and all three) and their pieces at the per-image path's tile size, each run over all
 * (image, tile) items on every core as the kernel runs them — im2col, col2im, the weight
 * gradient's and the input gradient's GEMMs (with their GFLOP/s), and a zero-filled dx.
 * Medians of repeated runs, ms.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.ConvProfile [reps [kernels]]}
 * (a second argument: the whole kernels only). With {@code paths} as the second argument it
 * compares instead the im2col and the Winograd path ({@code ConvPath}) on the 3×3 stride-1 convs
 * of ResNet's stages and of {@code ResNetConfig.small28}, forward and forward + backward (all three
 * gradients), alternating the paths round by round in this JVM: median over rounds of the best of three.
 */
public final class ConvProfile {
    private static final int N = 16, C = 64, O = 64, S = 56, TILE_ROWS = 4;

    public static void main(String[] args) {
        int reps = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        CpuBackend cpu = new CpuBackend();
        if (args.length > 1 && args[1].equals("paths")) {
            ConvPathsProfile.run(cpu, reps);
            return;
        }
        ConvGeometry g = new ConvGeometry(N, C, S, S, O, 3, 3, 1, 1, 1, 1, 1, 1, 1, S, S);
        try (var scope = Backends.use(cpu)) {
            Generator gen = new Generator(3);
            Tensor x = Tensor.randn(gen, N, C, S, S), w = Tensor.randn(gen, O, C, 3, 3).mul(0.05);
            Tensor b = Tensor.randn(gen, O), gy = Tensor.randn(gen, N, O, S, S);
            CpuConv conv = new CpuConv(cpu, Gemm.fastest(), true);
            report("forward", reps, g.flops(), () -> conv.conv2d(x, w, b, g));
            report("backward, input gradient only", reps, g.flops(), () -> conv.conv2dBackward(gy, x, w, g, true, false, false));
            report("backward, weight gradient only", reps, g.flops(), () -> conv.conv2dBackward(gy, x, w, g, false, true, false));
            report("backward, bias gradient only", reps, 0, () -> conv.conv2dBackward(gy, x, w, g, false, false, true));
            report("backward, all three", reps, 2 * g.flops(), () -> conv.conv2dBackward(gy, x, w, g, true, true, true));
            if (args.length < 2) pieces(g, reps, floats(x), floats(w), floats(gy));
        }
    }

    /** The per-image path's pieces, over the 16 × 14 (image, tile) items split across the cores. */
    private static void pieces(ConvGeometry g, int reps, float[] x, float[] w, float[] gy) {
        int k = g.patchSize(), lt = TILE_ROWS * g.outW(), tiles = g.outH() / TILE_ROWS, items = N * tiles;
        int pixels = g.outPixels(), plane = g.inH() * g.inW();
        Rows xr = new Rows(x, 0, g.inW());
        ConvTaps rows = ConvTaps.of(g.inH(), g.outH(), 3, 1, 1, 1), cols = ConvTaps.of(g.inW(), g.outW(), 3, 1, 1, 1);
        Gemm gemm = Gemm.fastest();
        TileMath math = TileMath.of(true);
        float[] wT = new float[k * O];
        for (int o = 0; o < O; o++) for (int p = 0; p < k; p++) wT[p * O + o] = w[o * k + p];
        float[] dx = new float[x.length];
        long tileFlops = 2L * k * O * lt * items;
        report("  im2col of every tile", reps, 0, () -> perItem(items, k * lt, (item, panel, out) ->
                Im2colTiles.im2col(xr, item / tiles * C * g.inH(), g, rows, cols, item % tiles * TILE_ROWS,
                        item % tiles * TILE_ROWS + TILE_ROWS, panel)));
        report("  weight-gradient GEMMs (576 x 64 x 224)", reps, tileFlops, () -> perItem(items, k * lt, (item, panel, out) ->
                gemm.sgemmBatched(1, k, O, lt, panel, 0, 0, lt, 1, gy, item / tiles * O * pixels + item % tiles * lt, 0, 1, pixels,
                        out, 0, 0, O)));
        report("  input-gradient GEMMs (576 x 224 x 64)", reps, tileFlops, () -> perItem(items, k * lt, (item, panel, out) ->
                gemm.sgemmBatched(1, k, lt, O, wT, 0, 0, O, 1, gy, item / tiles * O * pixels + item % tiles * lt, 0, pixels, 1,
                        panel, 0, 0, lt)));
        report("  col2im of every tile", reps, 0, () -> perItem(items, k * lt, (item, panel, out) ->
                Im2colTiles.col2im(panel, g, rows, cols, item % tiles * TILE_ROWS, item % tiles * TILE_ROWS + TILE_ROWS,
                        dx, item / tiles * C * plane, math)));
        report("  zero-filled dx (16x64x56x56)", reps, 0, () -> new float[x.length]);
        report("  forward-shaped GEMMs (64 x 224 x 576)", reps, tileFlops, () -> perItem(items, k * lt, (item, panel, out) ->
                gemm.sgemmBatched(1, O, lt, k, w, 0, 0, k, 1, panel, 0, 0, lt, 1, out, 0, 0, lt)));
    }

    private interface ItemBody {
        void run(int item, float[] panel, float[] out);
    }

    /** Runs body for every item, one chunk of items per core, each chunk with its own panel and output. */
    private static Object perItem(int items, int panelFloats, ItemBody body) {
        Parallel.forRange(items, 1, (from, to) -> {
            float[] panel = new float[panelFloats], out = new float[panelFloats];
            for (int i = from; i < to; i++) body.run(i, panel, out);
        });
        return null;
    }

    private static void report(String label, int reps, long flops, java.util.function.Supplier<Object> run) {
        for (int i = 0; i < 3; i++) run.get();
        double[] ms = new double[reps];
        for (int i = 0; i < reps; i++) {
            long t0 = System.nanoTime();
            run.get();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(ms);
        double median = ms[reps / 2];
        String rate = flops > 0 ? String.format(Locale.ROOT, "  %6.1f GFLOP/s", flops / median / 1e6) : "";
        System.out.printf(Locale.ROOT, "%-44s %8.2f ms  (min %.2f, max %.2f)%s%n", label, median, ms[0], ms[reps - 1], rate);
    }

    private static float[] floats(Tensor t) {
        return HeapStorage.of(t.contiguous().storage()).floats();
    }
}
