package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * What profiling costs, on the CPU backend: the same workloads with no session ("off") and
 * with one recording every op ("on"). {@code add64} is a 64-element add, where the per-op cost
 * of a scope (two clock reads, a frame, the aggregation) shows most; {@code mlpStep} is the
 * forward and backward of a small MLP — (32, 64) → 128 → relu → 10, cross-entropy — whose
 * ~40 recorded ops per step do real work. "off" should match {@link OpOverheadBenchmark}.
 * Six warm-up seconds for the same reason as there: C2 must compile the Vector API paths.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 6, time = 1)
@Measurement(iterations = 8, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class ProfilerBenchmark {

    @Param({"off", "on"})
    public String profiler;

    private Tensor a;
    private Tensor b;
    private Tensor x;
    private Tensor w1;
    private Tensor b1;
    private Tensor w2;
    private Tensor targets;
    private ProfilerSession session;

    @Setup(Level.Trial)
    public void setUp() {
        Backend be = Backends.get("cpu");
        try (var scope = Backends.use(be)) {
            Generator rng = new Generator(1);
            a = Tensor.randn(rng, 64);
            b = Tensor.randn(rng, 64);
            x = Tensor.randn(rng, 32, 64);
            w1 = Tensor.randn(rng, 64, 128).mul(0.1).requiresGrad(true);
            b1 = Tensor.zeros(128).requiresGrad(true);
            w2 = Tensor.randn(rng, 128, 10).mul(0.1).requiresGrad(true);
            long[] t = new long[32];
            for (int i = 0; i < t.length; i++) t[i] = i % 10;
            targets = Tensor.fromArray(t, 32);
        }
        if (profiler.equals("on")) session = Profiler.start("ProfilerBenchmark");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        if (session != null) session.close();
    }

    @Benchmark
    public Tensor add64() {
        return a.add(b);
    }

    @Benchmark
    public Tensor mlpStep() {
        Tensor loss = x.matmul(w1).add(b1).relu().matmul(w2).crossEntropy(targets);
        loss.backward();
        w1.zeroGrad();
        b1.zeroGrad();
        w2.zeroGrad();
        return loss;
    }
}
