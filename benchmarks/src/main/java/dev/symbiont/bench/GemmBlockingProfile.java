package dev.symbiont.bench;

import dev.symbiont.cpu.gemm.VectorGemm;

import java.util.Arrays;
import java.util.Locale;

/**
 * Two cache blockings of the vector GEMM alternated in one JVM, round after round, on the
 * products of a training step: a few-percent difference between blockings is smaller than what
 * a busy VM does to separate JMH runs, but alternating 0.15 s windows in one JVM shares the
 * JIT, the heap and the neighbours' load between them. Prints each blocking's median GFLOP/s
 * and in how many rounds the second one was faster.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar
 * dev.symbiont.bench.GemmBlockingProfile 256x128x512 512x128x512 1024,1024,1024 2048,1024,256,nt}
 * — blockings as KCxMCxNC, products as m,n,k[,layout] with layout nn (default), nt (B = Wᵀ of a
 * row-major W, as x·Wᵀ) or tn (A = Xᵀ of a row-major X, as a weight gradient gᵀ·x).
 */
public final class GemmBlockingProfile {
    private static final int ROUNDS = 15, WARM_ROUNDS = 2;
    private static final long WINDOW_NANOS = 150_000_000L;

    public static void main(String[] args) {
        if (args.length < 3) {
            System.err.println("usage: GemmBlockingProfile KCxMCxNC KCxMCxNC m,n,k[,nn|nt|tn] ...");
            System.exit(2);
        }
        VectorGemm[] gemms = {VectorGemm.withBlocking(VectorGemm.Blocking.parse(args[0])),
                VectorGemm.withBlocking(VectorGemm.Blocking.parse(args[1]))};
        for (int i = 2; i < args.length; i++) compare(gemms, args[0], args[1], args[i]);
    }

    private static void compare(VectorGemm[] gemms, String first, String second, String spec) {
        String[] f = spec.split(",");
        int m = Integer.parseInt(f[0]), n = Integer.parseInt(f[1]), k = Integer.parseInt(f[2]);
        String layout = f.length > 3 ? f[3] : "nn";
        boolean at = layout.charAt(0) == 't', bt = layout.charAt(1) == 't';
        float[] a = new float[m * k], b = new float[k * n], c = new float[m * n];
        for (int i = 0; i < a.length; i++) a[i] = (i % 7) * 0.01f;
        for (int i = 0; i < b.length; i++) b[i] = (i % 5) * 0.01f;
        double[][] rates = new double[2][ROUNDS];
        for (int round = -WARM_ROUNDS; round < ROUNDS; round++) {
            for (int v = 0; v < 2; v++) {
                long start = System.nanoTime(), calls = 0;
                while (System.nanoTime() - start < WINDOW_NANOS) {
                    gemms[v].sgemm(m, n, k, a, 0, at ? 1 : k, at ? m : 1, b, 0, bt ? 1 : n, bt ? k : 1, c, 0, n);
                    calls++;
                }
                if (round >= 0) rates[v][round] = 2.0 * m * n * k * calls / (System.nanoTime() - start);
            }
        }
        int wins = 0;
        for (int r = 0; r < ROUNDS; r++) if (rates[1][r] > rates[0][r]) wins++;
        for (double[] r : rates) Arrays.sort(r);
        System.out.printf(Locale.ROOT, "%-18s %s %.1f GFLOP/s, %s %.1f GFLOP/s (%+.1f%%), %s faster in %d of %d rounds%n",
                spec, first, rates[0][ROUNDS / 2], second, rates[1][ROUNDS / 2],
                100 * (rates[1][ROUNDS / 2] / rates[0][ROUNDS / 2] - 1), second, wins, ROUNDS);
    }
}
