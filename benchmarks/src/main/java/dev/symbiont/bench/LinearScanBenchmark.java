package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.scan.Scans;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.kernels.LinearRecurrence;
import dev.symbiont.cpu.kernels.ScanMath;
import dev.symbiont.cpu.kernels.TreeScans;
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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The linear recurrence h_t = a_t·h_{t−1} + b_t at batch 4, L 2048, channels 1024 (the
 * recurrence along L, channels innermost): each CPU kernel's forward on the raw arrays —
 * sequential, chunked, Hillis–Steele, Blelloch (the tree scans' rounds and combines are in
 * their {@code Cost}) — the backward's one reverse pass on the raw arrays, and the op's
 * forward + backward through autograd. Time per call in ms.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
// The JVM's default collector (G1), which the command line and the tests run: under ParallelGC the op's
// three fresh 32 MiB outputs a call brought full collections, 37 ms a call against 17 on Zen 4 (docs/log/benchmarks-log.md).
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector"})
public class LinearScanBenchmark {
    static final int BATCH = 4, LEN = 2048, CHANNELS = 1024;
    /** The rows of the recurrence as the CPU backend runs them (Vector API). */
    static final ScanMath ROWS = ScanMath.of(true);

    @Param({"sequential", "chunked", "hillis-steele", "blelloch"})
    public String kernel;

    private final CpuBackend cpu = new CpuBackend();
    private final LinearRecurrence.Dims dims = new LinearRecurrence.Dims(BATCH, LEN, CHANNELS, false);
    private LinearRecurrence.Run a, x;
    private float[] h, da, db;
    private LinearRecurrence.Run g, states;
    private Tensor ta, tb, gradH;

    @Setup
    public void setUp() {
        SplittableRandom r = new SplittableRandom(5);
        float[] av = new float[BATCH * LEN * CHANNELS], xv = new float[av.length];
        for (int i = 0; i < av.length; i++) { av[i] = (float) r.nextDouble(0.5, 1); xv[i] = (float) r.nextGaussian(); }
        a = new LinearRecurrence.Run(av, 0);
        x = new LinearRecurrence.Run(xv, 0);
        h = new float[av.length];
        da = new float[av.length];
        db = new float[av.length];
        float[] gv = new float[av.length];
        for (int i = 0; i < gv.length; i++) gv[i] = (float) r.nextGaussian();
        g = new LinearRecurrence.Run(gv, 0);
        float[] hv = new float[av.length];
        LinearRecurrence.sequential(ROWS, dims, a, x, hv);
        states = new LinearRecurrence.Run(hv, 0);
        try (var scope = Backends.use(cpu)) {
            ta = Tensor.fromArray(av, BATCH, LEN, CHANNELS).requiresGrad(true);
            tb = Tensor.fromArray(xv, BATCH, LEN, CHANNELS).requiresGrad(true);
            gradH = Tensor.randn(new Generator(6), BATCH, LEN, CHANNELS);
        }
    }

    @Benchmark
    public float[] forward() {
        switch (kernel) {
            case "sequential" -> LinearRecurrence.sequential(ROWS, dims, a, x, h);
            case "chunked" -> LinearRecurrence.chunked(ROWS, dims, a, x, h, 2 * CpuThreads.parallelism());
            case "hillis-steele" -> TreeScans.hillisSteele(dims, a, x, h);
            case "blelloch" -> TreeScans.blelloch(dims, a, x, h);
            default -> throw new IllegalArgumentException("unknown kernel " + kernel);
        }
        return h;
    }

    /** The backward kernel (da and db from the gradient of h, one reverse pass); the same for every {@code kernel} value. */
    @Benchmark
    public float[] adjoint() {
        LinearRecurrence.adjoint(ROWS, dims, a, g, states, null, da, db, null);
        return da;
    }

    /** The op (its own choice of kernel) forward + backward; the same for every {@code kernel} value. */
    @Benchmark
    public Tensor opForwardBackward() {
        ta.zeroGrad();
        tb.zeroGrad();
        try (var scope = Backends.use(cpu)) {
            Scans.linearScan(ta, tb, 1).backward(gradH);
        }
        return ta.grad();
    }
}
