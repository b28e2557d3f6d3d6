package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.norm.ChannelNorms;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.norm.Normalization;
import dev.symbiont.cpu.CpuBackend;

import java.util.Arrays;
import java.util.Locale;

/**
 * ConvNeXt's LayerNorm2d forward + backward on a stage-1 activation (16, 96, 56, 56) on the CPU
 * backend: the fused {@code layer_norm2d} kernel, the norm family's reference for it (forced),
 * and the permute + row layer norm it replaced. All three in one JVM, alternating; medians of
 * the rounds' best of three, ms.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.LayerNorm2dProfile [rounds]}
 */
public final class LayerNorm2dProfile {
    private static final int N = 16, C = 96, S = 56;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 9;
        try (var scope = Backends.use(new CpuBackend())) {
            Generator g = new Generator(9);
            Tensor x = Tensor.randn(g, N, C, S, S).requiresGrad(true);
            Tensor w = Tensor.randn(g, C).requiresGrad(true), b = Tensor.randn(g, C).requiresGrad(true);
            Tensor gradOut = Tensor.randn(g, N, C, S, S);
            String[] names = {"layer_norm2d kernel", "layer_norm2d reference", "permute + layer_norm"};
            Runnable[] runs = {
                () -> step(ChannelNorms.layerNormOverChannels(x, w, b, 1e-6), gradOut, x, w, b),
                () -> {
                    try (var ref = FusedKernels.forceReference(NormKernels.FAMILY)) {
                        step(ChannelNorms.layerNormOverChannels(x, w, b, 1e-6), gradOut, x, w, b);
                    }
                },
                () -> step(Normalization.layerNorm(x.permute(0, 2, 3, 1), new int[] {C}, w, b, 1e-6).permute(0, 3, 1, 2),
                        gradOut, x, w, b)};
            double[][] ms = new double[runs.length][rounds];
            for (int r = -2; r < rounds; r++) {
                for (int i = 0; i < runs.length; i++) {
                    double t = BestOfThree.millis(runs[i]);
                    if (r >= 0) ms[i][r] = t;
                }
            }
            for (int i = 0; i < runs.length; i++) {
                Arrays.sort(ms[i]);
                System.out.printf(Locale.ROOT, "%-24s (%d, %d, %d, %d) forward + backward: %.2f ms%n", names[i], N, C, S, S,
                        ms[i][rounds / 2]);
            }
        }
    }

    private static void step(Tensor y, Tensor gradOut, Tensor... leaves) {
        y.backward(gradOut);
        for (Tensor t : leaves) t.zeroGrad();
    }
}
