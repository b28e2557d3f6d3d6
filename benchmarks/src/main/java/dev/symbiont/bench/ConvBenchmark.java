package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.cpu.fused.ConvPath;
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
 * conv2d on a ResNet stage-1 activation, (16, 64, 56, 56), on the CPU backend, forward and
 * forward + backward (input, weight and bias gradients). Shapes:
 * <ul>
 *   <li>{@code 3x3} — 64 → 64, padding 1: Winograd F(2×2, 3×3) on the vector GEMM (1.6 GFLOP forward),
 *       or with {@code conv=im2col} the im2col panels (3.7 GFLOP);
 *   <li>{@code depthwise7x7} — 64 channels, groups 64, padding 3 (ConvNeXt): the direct kernel;
 *   <li>{@code 1x1} — 64 → 64: one GEMM per image, no im2col.
 * </ul>
 * {@code impl} is {@code cpu} (the conv family's CPU kernels) or {@code reference} (the family
 * forced to its im2col-by-index_select reference on the same backend); {@code conv} picks the CPU
 * kernels' path for the 3×3 conv ({@code -p conv=im2col,winograd} compares them). Time per call in ms.
 * A smoke run: {@code -p batch=2 -wi 1 -i 1 -w 1 -r 1 -f 1}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-XX:+UseParallelGC"})
public class ConvBenchmark {
    static final int CHANNELS = 64, SIZE = 56;

    @Param({"16"})
    public int batch;

    @Param({"3x3", "depthwise7x7", "1x1"})
    public String shape;

    @Param({"cpu"})
    public String impl;

    /** The CPU kernels' path for dense convs ({@code ConvPath}): auto, winograd or im2col. */
    @Param({"auto"})
    public String conv;

    private final CpuBackend cpu = new CpuBackend();
    private Tensor x, weight, bias, gradOut;
    private int padding, groups;

    @Setup
    public void setUp() {
        System.setProperty(ConvPath.PROPERTY, ConvPath.parse(conv).id());
        int k = switch (shape) {
            case "3x3" -> 3;
            case "depthwise7x7" -> 7;
            case "1x1" -> 1;
            default -> throw new IllegalArgumentException("shape must be 3x3, depthwise7x7 or 1x1, got " + shape);
        };
        padding = k / 2;
        groups = shape.equals("depthwise7x7") ? CHANNELS : 1;
        try (var scope = Backends.use(cpu)) {
            Generator g = new Generator(3);
            x = Tensor.randn(g, batch, CHANNELS, SIZE, SIZE).requiresGrad(true);
            weight = Tensor.randn(g, CHANNELS, CHANNELS / groups, k, k).mul(0.05).detach().requiresGrad(true);
            bias = Tensor.randn(g, CHANNELS).requiresGrad(true);
            gradOut = Tensor.randn(g, batch, CHANNELS, SIZE, SIZE);
        }
    }

    private Tensor conv() {
        return Convolutions.conv2d(x, weight, bias, 1, padding, 1, groups);
    }

    @Benchmark
    public Tensor forward() {
        try (var noGrad = GradMode.disabled(); var k = FusedChoice.of(impl, "cpu", ConvKernels.FAMILY);
             var scope = Backends.use(cpu)) {
            return conv();
        }
    }

    @Benchmark
    public Tensor forwardBackward() {
        x.zeroGrad();
        weight.zeroGrad();
        bias.zeroGrad();
        try (var k = FusedChoice.of(impl, "cpu", ConvKernels.FAMILY); var scope = Backends.use(cpu)) {
            conv().backward(gradOut);
        }
        return weight.grad();
    }
}
