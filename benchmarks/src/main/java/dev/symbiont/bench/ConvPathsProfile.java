package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.conv.ConvGeometry;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.cpu.fused.ConvPath;

import java.util.Arrays;
import java.util.Locale;

/**
 * {@link ConvProfile}'s {@code paths} mode: im2col against Winograd F(2×2, 3×3) on the conv
 * family's CPU kernels, per shape forward and backward (all three gradients), the two paths
 * alternating round by round so the machine's drift falls on both alike.
 */
final class ConvPathsProfile {
    private ConvPathsProfile() {}

    /** (batch, in channels, map side, out channels): ResNet-18's stages at batch 16, small28's at 128, and two stems. */
    private static final int[][] SHAPES = {
            {16, 64, 56, 64}, {16, 128, 28, 128}, {16, 256, 14, 256}, {16, 512, 7, 512},
            {128, 24, 14, 24}, {128, 48, 7, 48}, {128, 96, 4, 96}, {128, 192, 2, 192},
            {128, 1, 28, 24}, {16, 3, 56, 64}, {128, 8, 14, 8}};

    static void run(CpuBackend cpu, int rounds) {
        ConvKernels conv = cpu.fused(ConvKernels.FAMILY);
        String before = System.getProperty(ConvPath.PROPERTY);
        System.out.printf(Locale.ROOT, "%-22s %10s %10s %6s %10s %10s %6s%n", "N C S -> O (3x3, p1)",
                "fwd im2col", "winograd", "ratio", "bwd im2col", "winograd", "ratio");
        try (var scope = Backends.use(cpu)) {
            for (int[] s : SHAPES) {
                int n = s[0], c = s[1], size = s[2], o = s[3];
                ConvGeometry g = new ConvGeometry(n, c, size, size, o, 3, 3, 1, 1, 1, 1, 1, 1, 1, size, size);
                Generator gen = new Generator(3);
                Tensor x = Tensor.randn(gen, n, c, size, size), w = Tensor.randn(gen, o, c, 3, 3).mul(0.05);
                Tensor b = Tensor.randn(gen, o), gy = Tensor.randn(gen, n, o, size, size);
                double[][] ms = new double[4][rounds];
                for (int r = 0; r < rounds; r++) {
                    for (int p = 0; p < 2; p++) {
                        System.setProperty(ConvPath.PROPERTY, p == 0 ? "im2col" : "winograd");
                        ms[p][r] = BestOfThree.millis(() -> conv.conv2d(x, w, b, g));
                        ms[2 + p][r] = BestOfThree.millis(() -> conv.conv2dBackward(gy, x, w, g, true, true, true));
                    }
                }
                double f0 = median(ms[0]), f1 = median(ms[1]), b0 = median(ms[2]), b1 = median(ms[3]);
                System.out.printf(Locale.ROOT, "%-22s %10.2f %10.2f %6.2f %10.2f %10.2f %6.2f%n",
                        n + " " + c + " " + size + " -> " + o, f0, f1, f0 / f1, b0, b1, b0 / b1);
            }
        } finally {
            if (before == null) System.clearProperty(ConvPath.PROPERTY);
            else System.setProperty(ConvPath.PROPERTY, before);
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
