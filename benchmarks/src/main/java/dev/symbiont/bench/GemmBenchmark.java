package dev.symbiont.bench;

import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmPath;
import dev.symbiont.cpu.gemm.VectorSupport;
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

import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Square float32 GEMM, C = A·B with n×n row-major operands, per path.
 * Time per product in ms; GFLOP/s = 2n³ / (ms · 1e6). {@code benchmarks/gemm-vs-numpy.sh}
 * runs this next to numpy and prints the ratio.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class GemmBenchmark {

    @Param({"256", "512", "1024", "2048"})
    public int n;

    @Param({"vector", "ejml"})
    public String path;

    private Gemm gemm;
    private float[] a, b, c;

    @Setup
    public void setup() {
        GemmPath p = GemmPath.parse(path);
        if (p == GemmPath.VECTOR && !VectorSupport.check().available()) {
            // fail loudly rather than time a path that is not the one asked for
            throw new IllegalStateException("vector path requested but unavailable in the forked JVM: "
                    + VectorSupport.check().reason());
        }
        gemm = Gemm.of(p);
        Random rnd = new Random(42);
        a = new float[n * n];
        b = new float[n * n];
        c = new float[n * n];
        for (int i = 0; i < n * n; i++) {
            a[i] = rnd.nextFloat() - 0.5f;
            b[i] = rnd.nextFloat() - 0.5f;
        }
    }

    @Benchmark
    public float[] sgemm() {
        gemm.sgemm(n, n, n, a, 0, n, 1, b, 0, n, 1, c, 0, n);
        return c;
    }
}
