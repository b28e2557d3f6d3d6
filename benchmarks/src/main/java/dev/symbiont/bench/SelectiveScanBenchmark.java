package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.fused.scan.Scans;
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
 * Mamba's selective scan on the CPU backend at Mamba-130M's width (batch 2, d_inner 768,
 * N 16, with z, D and deltaBias, softplus): the fused kernel against the
 * {@code selective_scan_ref}-style reference (the scan family forced to its reference),
 * forward and forward + backward. Time per call in ms.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-XX:+UseParallelGC"})
public class SelectiveScanBenchmark {
    static final int BATCH = 2, CHANNELS = 768, STATES = 16;

    @Param({"512", "1024"})
    public int len;

    @Param({"fused", "reference"})
    public String impl;

    private final CpuBackend cpu = new CpuBackend();
    private Tensor u, delta, a, b, c, d, z, bias, gradOut;

    /** The backend's own kernels ("fused") or the reference ("reference") until closed. */
    static dev.symbiont.core.Scope implementation(String impl) {
        return FusedChoice.of(impl, "fused", ScanKernels.FAMILY);
    }

    @Setup
    public void setUp() {
        try (var scope = Backends.use(cpu)) {
            Generator g = new Generator(5);
            u = Tensor.randn(g, BATCH, CHANNELS, len).requiresGrad(true);
            delta = Tensor.randn(g, BATCH, CHANNELS, len).requiresGrad(true);
            a = Tensor.rand(g, CHANNELS, STATES).mul(-1).sub(0.1).detach().requiresGrad(true);
            b = Tensor.randn(g, BATCH, STATES, len).requiresGrad(true);
            c = Tensor.randn(g, BATCH, STATES, len).requiresGrad(true);
            d = Tensor.randn(g, CHANNELS).requiresGrad(true);
            z = Tensor.randn(g, BATCH, CHANNELS, len).requiresGrad(true);
            bias = Tensor.randn(g, CHANNELS).requiresGrad(true);
            gradOut = Tensor.randn(g, BATCH, CHANNELS, len);
        }
    }

    @Benchmark
    public Tensor forward() {
        try (var noGrad = GradMode.disabled(); var kernels = implementation(impl)) {
            return Scans.selectiveScan(u, delta, a, b, c, d, z, bias, true);
        }
    }

    @Benchmark
    public Tensor forwardBackward() {
        for (Tensor t : new Tensor[] {u, delta, a, b, c, d, z, bias}) t.zeroGrad();
        try (var kernels = implementation(impl)) {
            Scans.selectiveScan(u, delta, a, b, c, d, z, bias, true).backward(gradOut);
        }
        return u.grad();
    }
}
