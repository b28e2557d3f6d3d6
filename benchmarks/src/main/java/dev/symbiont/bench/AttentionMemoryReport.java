package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.memory.MemoryMeasure;
import dev.symbiont.cpu.CpuBackend;

import java.util.Arrays;
import java.util.Locale;

/**
 * Peak memory of one attention forward + backward (batch 1, 8 heads, head_dim 64, causal) per
 * sequence length, materialised reference vs FlashAttention on the CPU backend, and the median
 * time of the same step. Memory comes from the backend's accounting in exact mode (a full GC
 * before every counted allocation: the live set a reference-counted runtime would hold) and is
 * counted above the inputs q, k, v and the output gradient; times come from a separate,
 * normal-mode loop.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -XX:+UseParallelGC -cp benchmarks/target/benchmarks.jar
 * dev.symbiont.bench.AttentionMemoryReport [seq ...]} (default 512 1024 2048 4096).
 */
public final class AttentionMemoryReport {
    public static void main(String[] args) {
        int[] seqs = args.length == 0 ? new int[] {512, 1024, 2048, 4096} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        System.out.printf(Locale.ROOT, "batch=%d heads=%d head_dim=%d causal, forward+backward%n",
                AttentionBenchmark.BATCH, AttentionBenchmark.HEADS, AttentionBenchmark.HEAD_DIM);
        System.out.printf(Locale.ROOT, "%6s %18s %14s %8s %14s %10s%n", "seq", "reference_MiB", "flash_MiB", "ratio", "reference_ms", "flash_ms");
        for (int seq : seqs) {
            long ref = peakBytes("reference", seq), flash = peakBytes("flash", seq);
            double refMs = medianMillis("reference", seq), flashMs = medianMillis("flash", seq);
            System.out.printf(Locale.ROOT, "%6d %18.1f %14.1f %7.1fx %14.1f %10.1f%n",
                    seq, ref / 1048576.0, flash / 1048576.0, (double) ref / flash, refMs, flashMs);
        }
    }

    /** q, k, v (requiring grad) and an output gradient on {@code backend}. */
    private static Tensor[] inputs(Backend backend, int seq) {
        try (var scope = Backends.use(backend)) {
            Generator rng = new Generator(5);
            int[] shape = {AttentionBenchmark.BATCH, AttentionBenchmark.HEADS, seq, AttentionBenchmark.HEAD_DIM};
            return new Tensor[] {Tensor.randn(rng, shape).requiresGrad(true), Tensor.randn(rng, shape).requiresGrad(true),
                    Tensor.randn(rng, shape).requiresGrad(true), Tensor.randn(rng, shape)};
        }
    }

    private static void step(Tensor[] in) {
        Tensor.scaledDotProductAttention(in[0], in[1], in[2], null, true).backward(in[3]);
        for (int i = 0; i < 3; i++) in[i].zeroGrad();
    }

    /** Peak bytes above the inputs during one forward + backward, exact mode. */
    static long peakBytes(String impl, int seq) {
        Backend backend = new CpuBackend();
        Tensor[] in = inputs(backend, seq);
        try (var kernels = AttentionBenchmark.implementation(impl)) {
            return MemoryMeasure.peakAbove(backend,
                    () -> Tensor.scaledDotProductAttention(in[0], in[1], in[2], null, true).backward(in[3]));
        }
    }

    static double medianMillis(String impl, int seq) {
        Tensor[] in = inputs(new CpuBackend(), seq);
        double[] ms = new double[5];
        try (var kernels = AttentionBenchmark.implementation(impl)) {
            for (int i = 0; i < 2; i++) step(in);
            for (int i = 0; i < ms.length; i++) {
                long t0 = System.nanoTime();
                step(in);
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Arrays.sort(ms);
        return ms[ms.length / 2];
    }
}
