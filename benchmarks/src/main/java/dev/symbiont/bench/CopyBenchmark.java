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
 * Data movement on a (1024, 1024) float32 tensor, the CPU backend against the reference:
 * materialising a transposed view and a row vector broadcast (stride 0) to the full shape.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class CopyBenchmark {

    @Param({"cpu", "reference"})
    public String backend;

    private static final int ROWS = 1024;
    private static final int COLS = 1024;

    private Tensor transposed;
    private Tensor broadcast;

    @Setup
    public void setUp() {
        Backend be = Backends.get(backend);
        try (var scope = Backends.use(be)) {
            Generator rng = new Generator(5);
            transposed = Tensor.randn(rng, ROWS, COLS).t();
            broadcast = Tensor.randn(rng, COLS).expand(ROWS, COLS);
        }
    }

    /** (1024, 1024)ᵀ → a contiguous copy: a 2-D transpose. */
    @Benchmark
    public Tensor contiguousTransposed() { return transposed.contiguous(); }

    /** (1024) expanded to (1024, 1024) → a contiguous copy: each row a copy of the vector. */
    @Benchmark
    public Tensor materializeBroadcast() { return broadcast.contiguous(); }
}
