package dev.symbiont.bench;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.cpu.CpuBackend;
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
 * Scaled-dot-product attention on the CPU backend: the tiled FlashAttention kernels against the
 * materialised reference (the attention family forced to its reference: same GEMM and
 * elementwise kernels), forward and forward + backward, batch 1, 8 heads, head_dim 64. Time per call in ms;
 * the work is 4·8·seq²·64 FLOPs forward (half of it when causal) and 2.5× that backward.
 * Peak memory of the same calls: {@link AttentionMemoryReport}.
 *
 * <p>{@code layout}: q, k, v (batch, heads, seq, d) tensors of their own ("contiguous"), or
 * head-split views of (batch, seq, heads·d) projections as {@code MultiHeadAttention} makes them
 * ("split"). {@code precision}: float32, or "bf16" under bf16 autocast (q, k, v cast to bf16
 * and widened again inside the kernel; the casts are part of the timed call).
 *
 * <p>The allocation-heavy reference is run with the parallel collector, as the tests are.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-XX:+UseParallelGC"})
public class AttentionBenchmark {
    public static final int BATCH = 1, HEADS = 8, HEAD_DIM = 64;

    @Param({"512", "1024", "2048", "4096"})
    public int seq;

    @Param({"false", "true"})
    public boolean causal;

    @Param({"flash", "reference"})
    public String impl;

    @Param({"contiguous", "split"})
    public String layout;

    @Param({"float32", "bf16"})
    public String precision;

    private final CpuBackend cpu = new CpuBackend();
    private Tensor q, k, v, gradOut;

    /** FlashAttention ("flash", the backend's own kernels) or the materialised reference ("reference") until closed. */
    static dev.symbiont.core.Scope implementation(String impl) {
        return FusedChoice.of(impl, "flash", AttentionKernels.FAMILY);
    }

    @Setup
    public void setUp() {
        try (var scope = Backends.use(cpu)) {
            Generator rng = new Generator(5);
            q = input(rng).requiresGrad(true);
            k = input(rng).requiresGrad(true);
            v = input(rng).requiresGrad(true);
            gradOut = input(rng);
        }
    }

    /** A (batch, heads, seq, d) tensor in the benchmark's layout (a leaf: split views are of a leaf's storage). */
    private Tensor input(Generator rng) {
        return switch (layout) {
            case "contiguous" -> Tensor.randn(rng, BATCH, HEADS, seq, HEAD_DIM);
            case "split" -> Tensor.randn(rng, BATCH, seq, HEADS, HEAD_DIM).transpose(1, 2);
            default -> throw new IllegalArgumentException("layout must be contiguous or split, got " + layout);
        };
    }

    /** bf16 autocast until closed for "bf16", nothing for "float32". */
    private dev.symbiont.core.Scope precision() {
        return switch (precision) {
            case "float32" -> () -> { };
            case "bf16" -> Autocast.enable(DType.BFLOAT16);
            default -> throw new IllegalArgumentException("precision must be float32 or bf16, got " + precision);
        };
    }

    @Benchmark
    public Tensor forward() {
        try (var noGrad = GradMode.disabled(); var kernels = implementation(impl); var amp = precision()) {
            return Tensor.scaledDotProductAttention(q, k, v, null, causal);
        }
    }

    @Benchmark
    public Tensor forwardBackward() {
        q.zeroGrad();
        k.zeroGrad();
        v.zeroGrad();
        try (var kernels = implementation(impl); var amp = precision()) {
            Tensor.scaledDotProductAttention(q, k, v, null, causal).backward(gradOut);
        }
        return q.grad();
    }
}
