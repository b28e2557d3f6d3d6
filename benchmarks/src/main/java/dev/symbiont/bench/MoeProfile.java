package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
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

import java.util.Arrays;
import java.util.Locale;

/**
 * {@link MoeBenchmark}'s dropless MoE layer against its dense equal-active FFN at the benchmark's
 * shapes, in one JVM: first both timed alternately, forward and forward + backward (medians of
 * the rounds' best of three, and the ratio), then the profiler's table of each (forward +
 * backward), where an MoE step's time goes (grouped GEMMs, router, permute, combine,
 * elementwise) next to the dense layer's.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.MoeProfile [tokens] [rounds]}
 */
public final class MoeProfile {
    public static void main(String[] args) {
        int tokens = args.length > 0 ? Integer.parseInt(args[0]) : 2048;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        CpuBackend cpu = new CpuBackend();
        try (var scope = Backends.use(cpu)) {
            Generator g = new Generator(7);
            Layer moe = new MoeFeedForward(MoeConfig.of(MoeBenchmark.D_MODEL, MoeBenchmark.EXPERTS, MoeBenchmark.TOP_K,
                    MoeBenchmark.HIDDEN), g);
            Layer dense = new FeedForward(BlockConfig.of(MoeBenchmark.D_MODEL, 4, MoeBenchmark.TOP_K * MoeBenchmark.HIDDEN)
                    .withMlp(MlpKind.SWIGLU), g);
            Tensor x = Tensor.randn(g, tokens, MoeBenchmark.D_MODEL).requiresGrad(true);
            Tensor gradOut = Tensor.randn(g, tokens, MoeBenchmark.D_MODEL);
            double[][] ms = new double[4][rounds];
            for (int r = -2; r < rounds; r++) {
                double[] round = {
                    BestOfThree.millis(() -> forward(moe, x)), BestOfThree.millis(() -> forward(dense, x)),
                    BestOfThree.millis(() -> step(moe, x, gradOut)), BestOfThree.millis(() -> step(dense, x, gradOut))};
                if (r >= 0) for (int i = 0; i < 4; i++) ms[i][r] = round[i];
            }
            double[] med = new double[4];
            for (int i = 0; i < 4; i++) {
                Arrays.sort(ms[i]);
                med[i] = ms[i][rounds / 2];
            }
            System.out.printf(Locale.ROOT, "tokens %d, %d rounds: forward MoE %.1f ms, dense %.1f ms (%.2fx); "
                            + "forward + backward MoE %.1f ms, dense %.1f ms (%.2fx)%n%n", tokens, rounds,
                    med[0], med[1], med[0] / med[1], med[2], med[3], med[2] / med[3]);
            profile("moe dropless, tokens " + tokens, moe, x, gradOut);
            profile("dense equal-active, tokens " + tokens, dense, x, gradOut);
        }
    }

    private static void profile(String label, Layer layer, Tensor x, Tensor gradOut) {
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

    private static void forward(Layer layer, Tensor x) {
        try (var noGrad = GradMode.disabled()) {
            layer.forward(x);
        }
    }

    private static void step(Layer layer, Tensor x, Tensor gradOut) {
        layer.forward(x).backward(gradOut);
        layer.zeroGrad();
        x.zeroGrad();
    }
}
