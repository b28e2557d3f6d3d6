package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.norm.ChannelNorms;
import dev.symbiont.core.fused.norm.NormKernels;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Training-mode batch norm of a ResNet stage-1 activation, (16, 64, 56, 56) float32 with weight
 * and bias, on the CPU backend: the fused per-channel kernels ("fused") against the norm
 * family's reference composition ("reference", forced with {@code FusedKernels.forceReference}).
 * Forward alone (running statistics updated) and forward + backward (input, weight and bias
 * gradients).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class BatchNormBenchmark {
    private static final int N = 16, C = 64, H = 56, W = 56;

    @Param({"fused", "reference"})
    public String impl;

    private Tensor x, weight, bias, runningMean, runningVar, gradY;

    @Setup
    public void setUp() {
        try (var scope = Backends.use(Backends.get("cpu"))) {
            Generator g = new Generator(5);
            x = Tensor.randn(g, N, C, H, W).requiresGrad(true);
            weight = Tensor.ones(C).requiresGrad(true);
            bias = Tensor.zeros(C).requiresGrad(true);
            runningMean = Tensor.zeros(C);
            runningVar = Tensor.ones(C);
            gradY = Tensor.randn(g, N, C, H, W);
        }
    }

    private Tensor forward() {
        return ChannelNorms.batchNorm(x, runningMean, runningVar, weight, bias, true, 0.1, 1e-5);
    }

    @Benchmark
    public Tensor forwardOnly() {
        try (var noGrad = GradMode.disabled(); var kernels = FusedChoice.of(impl, "fused", NormKernels.FAMILY)) {
            return forward();
        }
    }

    @Benchmark
    public Tensor forwardBackward() {
        x.zeroGrad();
        weight.zeroGrad();
        bias.zeroGrad();
        try (var kernels = FusedChoice.of(impl, "fused", NormKernels.FAMILY)) {
            forward().backward(gradY);
        }
        return x.grad();
    }
}
