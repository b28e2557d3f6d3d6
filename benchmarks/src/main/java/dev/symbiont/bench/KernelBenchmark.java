package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
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
 * The CPU backend's vectorised, parallel kernels against their reference twins on a
 * (1024, 1024) float32 tensor: one elementwise, one broadcast binary, one reduction, GELU
 * (forward, and forward + backward through the fused gradient) and the fused softmax and layer
 * norm (forward, and forward + backward).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class KernelBenchmark {

    @Param({"cpu", "reference"})
    public String backend;

    private static final int ROWS = 1024;
    private static final int COLS = 1024;

    private Tensor x;
    private Tensor bias;
    private Tensor xGrad;
    private Tensor weight;

    @Setup
    public void setUp() {
        Backend be = Backends.get(backend);
        try (var scope = Backends.use(be)) {
            Generator rng = new Generator(3);
            x = Tensor.randn(rng, ROWS, COLS);
            bias = Tensor.randn(rng, COLS);
            xGrad = Tensor.randn(rng, ROWS, COLS).requiresGrad(true);
            weight = Tensor.ones(COLS).requiresGrad(true);
        }
    }

    @Benchmark
    public Tensor exp() { return x.exp(); }

    @Benchmark
    public Tensor addBias() { return x.add(bias); }

    @Benchmark
    public Tensor sumLastDim() { return x.sum(-1, false); }

    @Benchmark
    public Tensor softmax() { return x.softmax(-1); }

    @Benchmark
    public Tensor gelu() { return x.gelu(); }

    @Benchmark
    public Tensor geluForwardBackward() {
        xGrad.zeroGrad();
        xGrad.gelu().sum().backward();
        return xGrad.grad();
    }

    @Benchmark
    public Tensor layerNorm() { return x.layerNorm(new int[] {COLS}, weight.detach(), null, 1e-5); }

    @Benchmark
    public Tensor layerNormForwardBackward() {
        xGrad.zeroGrad();
        weight.zeroGrad();
        xGrad.layerNorm(new int[] {COLS}, weight, null, 1e-5).sum().backward();
        return xGrad.grad();
    }
}
