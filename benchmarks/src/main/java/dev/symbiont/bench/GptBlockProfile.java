package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.nn.attention.TransformerBlock;

import java.util.Locale;

/**
 * The profiler's table for the GPT block training step of {@link GptBlockBenchmark} (seq 256):
 * 30 forward + backward steps after 60 of warm-up (enough for C2 to have compiled every kernel
 * it runs), then the share of matmul time — the articles' claim is that matmuls take over 80% of
 * a Transformer layer.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.GptBlockProfile [seq]}
 */
public final class GptBlockProfile {
    public static void main(String[] args) {
        int seq = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        TransformerBlock block = GptBlockBenchmark.newBlock();
        Tensor x = Tensor.randn(new Generator(1), GptBlockBenchmark.BATCH, seq, GptBlockBenchmark.D_MODEL).requiresGrad(true);
        for (int i = 0; i < 60; i++) step(block, x);
        ProfileReport report;
        try (ProfilerSession session = Profiler.start("gpt block, seq " + seq)) {
            for (int i = 0; i < 30; i++) step(block, x);
            report = session.report();
        }
        System.out.println(report.table());
        double matmul = report.category(OpCategory.MATMUL).share(), attention = report.category(OpCategory.ATTENTION).share();
        System.out.printf(Locale.ROOT, "matmul share %.1f%%, attention %.1f%%, matmul + attention %.1f%%%n",
                100 * matmul, 100 * attention, 100 * (matmul + attention));
    }

    private static void step(TransformerBlock block, Tensor x) {
        block.forward(x, null, true, null).sum().backward();
        block.zeroGrad();
        x.zeroGrad();
    }
}
