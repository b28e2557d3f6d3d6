package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.nn.mamba.CausalConv1d;

import java.util.Arrays;
import java.util.Locale;

/**
 * Mamba's causal depthwise conv1d (kernel 4) forward + backward at a training step's shape
 * (batch 8, d_inner 512, L 256, the input a transposed view as the mixer hands it): the
 * {@link CausalConv1d} layer (the conv family's conv1d) against the composition it replaced,
 * K narrow · multiply · add steps of tensor ops. Both in one JVM, alternating, medians of the
 * rounds' best of three, ms.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.CausalConv1dProfile [rounds]}
 */
public final class CausalConv1dProfile {
    private static final int BATCH = 8, CHANNELS = 512, LENGTH = 256, KERNEL = 4;

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 15;
        try (var scope = Backends.use(new CpuBackend())) {
            Generator g = new Generator(5);
            CausalConv1d conv = new CausalConv1d(CHANNELS, KERNEL, g);
            Tensor x = Tensor.randn(g, BATCH, LENGTH, CHANNELS).transpose(1, 2).detach().requiresGrad(true);
            Tensor gradOut = Tensor.randn(g, BATCH, CHANNELS, LENGTH);
            double[] layer = new double[rounds], composed = new double[rounds];
            for (int r = -3; r < rounds; r++) {
                double a = BestOfThree.millis(() -> step(conv.forward(x, null), conv, x, gradOut));
                double b = BestOfThree.millis(() -> step(composition(conv, conv.pad(x, null)), conv, x, gradOut));
                if (r >= 0) {
                    layer[r] = a;
                    composed[r] = b;
                }
            }
            Arrays.sort(layer);
            Arrays.sort(composed);
            System.out.printf(Locale.ROOT, "causal conv1d (%d, %d, %d), kernel %d, forward + backward: conv1d %.2f ms, composition %.2f ms%n",
                    BATCH, CHANNELS, LENGTH, KERNEL, layer[rounds / 2], composed[rounds / 2]);
        }
    }

    /** The replaced composition: y = bias + Σ_j w_j ⊙ padded[:, :, j : j + L]. */
    private static Tensor composition(CausalConv1d conv, Tensor padded) {
        int len = padded.size(2) - (KERNEL - 1);
        Tensor w = conv.weight().value().select(1, 0), y = conv.bias().value().reshape(CHANNELS, 1);
        for (int j = 0; j < KERNEL; j++) y = y.add(padded.narrow(2, j, len).mul(w.narrow(1, j, 1)));
        return y;
    }

    private static void step(Tensor y, CausalConv1d conv, Tensor x, Tensor gradOut) {
        y.backward(gradOut);
        conv.zeroGrad();
        x.zeroGrad();
    }
}
