package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.nn.Layer;
import dev.symbiont.nn.attention.BlockConfig;
import dev.symbiont.nn.attention.FeedForward;
import dev.symbiont.nn.attention.MlpKind;
import dev.symbiont.nn.moe.Dispatch;
import dev.symbiont.nn.moe.MoeConfig;
import dev.symbiont.nn.moe.MoeFeedForward;
import dev.symbiont.nn.moe.PerTokenMoe;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The MoE feed-forward layer against dense SwiGLU FFNs in the same run, forward and forward +
 * backward, on the CPU backend: 2048 tokens (batch 8 × seq 256), d 256, expert hidden 1024,
 * E 8, k 2. Implementations:
 * <ul>
 *   <li>{@code dropless} — the moe family's CPU kernels, every slot kept (MegaBlocks);
 *   <li>{@code capacity} — the same with capacity factor 1.25 (Switch);
 *   <li>{@code reference} — dropless with the family forced to its reference (a matmul per expert);
 *   <li>{@code per-token} — the same layer's per-token loop ({@link PerTokenMoe}: each token through
 *       each of its k experts with plain ops), the reference; a call takes seconds, so run it
 *       with few iterations: {@code -p impl=dropless,per-token -wi 2 -i 3};
 *   <li>{@code dense-active} — a dense SwiGLU FFN with the MoE's active parameters (hidden k·1024 = 2048);
 *   <li>{@code dense-total} — one with its total parameters (hidden E·1024 = 8192).
 * </ul>
 * Time per call in ms. Expert FLOPs forward: 3 · 2 · T·k · d · hidden (the router adds 2·T·d·E).
 * A smoke run: {@code -p tokens=256 -wi 1 -i 1 -w 1 -r 1 -f 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)   // the grouped GEMMs need a few seconds of C2 before they settle
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-XX:+UseParallelGC"})
public class MoeBenchmark {
    static final int D_MODEL = 256, HIDDEN = 1024, EXPERTS = 8, TOP_K = 2;

    @Param({"2048"})
    public int tokens;

    @Param({"dropless", "capacity", "reference", "per-token", "dense-active", "dense-total"})
    public String impl;

    private final CpuBackend cpu = new CpuBackend();
    private Layer layer;
    private Tensor x, gradOut;

    @Setup
    public void setUp() {
        try (var scope = Backends.use(cpu)) {
            Generator g = new Generator(7);
            MoeConfig moe = MoeConfig.of(D_MODEL, EXPERTS, TOP_K, HIDDEN);
            layer = switch (impl) {
                case "dropless", "reference" -> new MoeFeedForward(moe, g);
                case "per-token" -> new PerTokenMoe(new MoeFeedForward(moe, g));
                case "capacity" -> new MoeFeedForward(moe.withDispatch(Dispatch.capacity(1.25)), g);
                case "dense-active" -> dense(TOP_K * HIDDEN, g);
                case "dense-total" -> dense(EXPERTS * HIDDEN, g);
                default -> throw new IllegalArgumentException(
                        "impl must be dropless, capacity, reference, per-token, dense-active or dense-total, got " + impl);
            };
            x = Tensor.randn(g, tokens, D_MODEL).requiresGrad(true);
            gradOut = Tensor.randn(g, tokens, D_MODEL);
        }
    }

    private static FeedForward dense(int hidden, Generator g) {
        return new FeedForward(BlockConfig.of(D_MODEL, 4, hidden).withMlp(MlpKind.SWIGLU), g);
    }

    private dev.symbiont.core.Scope kernels() {
        return impl.equals("reference") ? FusedKernels.forceReference(MoeKernels.FAMILY) : () -> { };
    }

    @Benchmark
    public Tensor forward() {
        try (var noGrad = GradMode.disabled(); var k = kernels(); var scope = Backends.use(cpu)) {
            return layer.forward(x);
        }
    }

    @Benchmark
    public Tensor forwardBackward() {
        x.zeroGrad();
        layer.zeroGrad();
        try (var k = kernels(); var scope = Backends.use(cpu)) {
            layer.forward(x).backward(gradOut);
        }
        return x.grad();
    }
}
