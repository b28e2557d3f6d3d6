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
 * Dispatch cost of one small op: adding two 64-element tensors, with and without grad
 * tracking. The arithmetic is a few nanoseconds; everything else is the library's overhead.
 * Six warm-up seconds: until C2 has compiled the Vector API paths an op can take microseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 6, time = 1)
@Measurement(iterations = 8, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class OpOverheadBenchmark {

    @Param({"cpu", "reference"})
    public String backend;

    private Tensor a;
    private Tensor b;
    private Tensor aGrad;
    private Tensor bGrad;

    @Setup
    public void setUp() {
        Backend be = Backends.get(backend);
        try (var scope = Backends.use(be)) {
            Generator rng = new Generator(1);
            a = Tensor.randn(rng, 64);
            b = Tensor.randn(rng, 64);
            aGrad = Tensor.randn(rng, 64).requiresGrad(true);
            bGrad = Tensor.randn(rng, 64).requiresGrad(true);
        }
    }

    @Benchmark
    public Tensor add64() {
        return a.add(b);
    }

    @Benchmark
    public Tensor add64WithGrad() {
        return aGrad.add(bGrad);
    }
}
