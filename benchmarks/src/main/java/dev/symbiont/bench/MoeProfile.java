package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.FeedForward;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.moe.MoeConfig;
import dev.symbiont.nn.moe.MoeFeedForward;

import java.util.Locale;

/**
 * The profiler's table for {@link MoeBenchmark}'s dropless MoE layer and its dense equal-active
 * FFN, forward + backward at the benchmark's shapes: where an MoE step's time goes (grouped
 * GEMMs, routing, permute, combine, elementwise, copies) next to the dense layer's.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.MoeProfile [tokens]}
 */
public final class MoeProfile {
    public static void main(String[] args) {
        int tokens = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        CpuBackend cpu = new CpuBackend();
        try (var scope = Backends.use(cpu)) {
            Generator g = new Generator(7);
            Layer moe = new MoeFeedForward(MoeConfig.of(MoeBenchmark.D_MODEL, MoeBenchmark.EXPERTS, MoeBenchmark.TOP_K,
                    MoeBenchmark.HIDDEN), g);
            Layer dense = new FeedForward(BlockConfig.of(MoeBenchmark.D_MODEL, 4, MoeBenchmark.TOP_K * MoeBenchmark.HIDDEN)
                    .withMlp(MlpKind.SWIGLU), g);
            Tensor x = Tensor.randn(g, tokens, MoeBenchmark.D_MODEL).requiresGrad(true);
            Tensor gradOut = Tensor.randn(g, tokens, MoeBenchmark.D_MODEL);
            profile("moe dropless, tokens " + tokens, moe, x, gradOut);
            profile("dense equal-active, tokens " + tokens, dense, x, gradOut);
        }
    }

    private static void profile(String label, Layer layer, Tensor x, Tensor gradOut) {
        for (int i = 0; i < 8; i++) step(layer, x, gradOut);
        ProfileReport report;
        try (ProfilerSession session = Profiler.start(label)) {
            for (int i = 0; i < 8; i++) step(layer, x, gradOut);
            report = session.report();
        }
        System.out.println(report.table());
        System.out.printf(Locale.ROOT, "%s: %.1f ms/step, matmul share %.1f%%, routing share %.1f%%%n%n", label,
                report.wallNanos() / 8e6, 100 * report.category(OpCategory.MATMUL).share(),
                100 * report.category(OpCategory.ROUTING).share());
    }

    private static void step(Layer layer, Tensor x, Tensor gradOut) {
        layer.forward(x).backward(gradOut);
        layer.zeroGrad();
        x.zeroGrad();
    }
}
