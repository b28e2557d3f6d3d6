package dev.symbiont.bench;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.scan.Scans;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;
import dev.symbiont.cpu.CpuBackend;
import dev.symbiont.cpu.kernels.LinearRecurrence;
import dev.symbiont.cpu.kernels.Parallel;
import dev.symbiont.cpu.kernels.ScanMath;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * Where the milliseconds of {@code Scans.linearScan}'s forward + backward go at the benchmark's
 * shape (batch 4, L 2048, channels 1024, the scan along L; 32 MiB per tensor), in one JVM,
 * alternating rounds: the two kernels on preallocated arrays, the op through autograd with its
 * outputs left to the collector (what {@link LinearScanBenchmark} measures) or released to the
 * pool, the op with a {@code sum()} loss, a fresh 32 MiB array, and this machine's memory floor:
 * a 32 MiB copy, a write-only fill and a triad (a = b + s·c) on all cores, the same traffic
 * pattern the kernels have. Medians of the rounds' best of three, ms, with the bytes each moves
 * (write-allocate reads counted) and the rate.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -cp benchmarks/target/benchmarks.jar dev.symbiont.bench.LinearScanProfile [rounds]}
 */
public final class LinearScanProfile {
    private static final int BATCH = LinearScanBenchmark.BATCH, LEN = LinearScanBenchmark.LEN,
            CHANNELS = LinearScanBenchmark.CHANNELS, N = BATCH * LEN * CHANNELS;
    private static final ScanMath ROWS = LinearScanBenchmark.ROWS, SCALAR_ROWS = ScanMath.of(false);
    private static final double MIB = N * 4.0 / (1 << 20);

    private record Row(String name, double mib, Runnable run) {}

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 7;
        CpuBackend cpu = new CpuBackend();
        SplittableRandom r = new SplittableRandom(5);
        float[] av = new float[N], xv = new float[N], gv = new float[N], hv = new float[N];
        for (int i = 0; i < N; i++) { av[i] = (float) r.nextDouble(0.5, 1); xv[i] = (float) r.nextGaussian(); gv[i] = (float) r.nextGaussian(); }
        var dims = new LinearRecurrence.Dims(BATCH, LEN, CHANNELS, false);
        var a = new LinearRecurrence.Run(av, 0);
        var x = new LinearRecurrence.Run(xv, 0);
        var g = new LinearRecurrence.Run(gv, 0);
        LinearRecurrence.sequential(ROWS, dims, a, x, hv);
        var h = new LinearRecurrence.Run(hv, 0);
        float[] out = new float[N], da = new float[N], db = new float[N];
        Object[] sink = new Object[1];
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("copy 32 MiB (all cores)", 3 * MIB, () -> parallel((i0, i1) -> System.arraycopy(xv, i0, out, i0, i1 - i0))));
        rows.add(new Row("fill 32 MiB (all cores)", 2 * MIB, () -> parallel((i0, i1) -> Arrays.fill(out, i0, i1, 1f))));
        rows.add(new Row("triad a = b + s·c (all cores)", 4 * MIB, () -> parallel((i0, i1) -> {
            for (int i = i0; i < i1; i++) out[i] = xv[i] + 0.5f * gv[i];
        })));
        rows.add(new Row("new float[8 M] (one thread)", 2 * MIB, () -> sink[0] = new float[N]));
        rows.add(new Row("forward kernel", 4 * MIB, () -> LinearRecurrence.sequential(ROWS, dims, a, x, out)));
        rows.add(new Row("forward kernel, scalar twin (before)", 4 * MIB, () -> LinearRecurrence.sequential(SCALAR_ROWS, dims, a, x, out)));
        rows.add(new Row("backward kernel (da, db)", 7 * MIB, () -> LinearRecurrence.adjoint(ROWS, dims, a, g, h, null, da, db, null)));
        rows.add(new Row("backward kernel, scalar twin (da, db)", 7 * MIB, () -> LinearRecurrence.adjoint(SCALAR_ROWS, dims, a, g, h, null, da, db, null)));
        rows.add(new Row("backward kernel (db only)", 5 * MIB, () -> LinearRecurrence.adjoint(ROWS, dims, a, g, h, null, null, db, null)));
        LinearRecurrence.adjoint(ROWS, dims, a, g, h, null, da, db, null);
        float[] da0 = da.clone(), db0 = db.clone();
        for (AdjointCandidates.Kind k : AdjointCandidates.Kind.values()) {
            Arrays.fill(da, Float.NaN);
            Arrays.fill(db, Float.NaN);
            AdjointCandidates.run(k, BATCH, LEN, CHANNELS, av, gv, hv, da, db);
            System.out.printf(Locale.ROOT, "%-48s max |Δda| %.2e, max |Δdb| %.2e%n", k.label(), maxDiff(da0, da), maxDiff(db0, db));
            rows.add(new Row("backward: " + k.label(), 7 * MIB, () -> AdjointCandidates.run(k, BATCH, LEN, CHANNELS, av, gv, hv, da, db)));
        }
        Tensor ta, tb, gradH;
        try (var scope = Backends.use(cpu)) {
            ta = Tensor.fromArray(av, BATCH, LEN, CHANNELS).requiresGrad(true);
            tb = Tensor.fromArray(xv, BATCH, LEN, CHANNELS).requiresGrad(true);
            gradH = Tensor.randn(new Generator(6), BATCH, LEN, CHANNELS);
        }
        Tensor fa = ta, fb = tb, fg = gradH;
        rows.add(new Row("op forward, h dropped", 4 * MIB, () -> inCpu(cpu, () -> sink[0] = Scans.linearScan(fa.detach(), fb.detach(), 1))));
        rows.add(new Row("op fwd + backward(g), outputs dropped", 11 * MIB, () -> inCpu(cpu, () -> {
            fa.zeroGrad();
            fb.zeroGrad();
            Scans.linearScan(fa, fb, 1).backward(fg);
            return fa.grad();
        })));
        rows.add(new Row("op fwd + backward(g), outputs released", 11 * MIB, () -> inCpu(cpu, () -> {
            Tensor hh = Scans.linearScan(fa, fb, 1);
            hh.backward(fg);
            hh.storage().release();
            fa.grad().storage().release();
            fb.grad().storage().release();
            fa.zeroGrad();
            fb.zeroGrad();
            return null;
        })));
        rows.add(new Row("op fwd + sum().backward(), dropped", 11 * MIB, () -> inCpu(cpu, () -> {
            fa.zeroGrad();
            fb.zeroGrad();
            Scans.linearScan(fa, fb, 1).sum().backward();
            return fa.grad();
        })));

        double[][] ms = new double[rows.size()][rounds];
        for (int round = -2; round < rounds; round++) {
            for (int i = 0; i < rows.size(); i++) {
                double t = BestOfThree.millis(rows.get(i).run());
                if (round >= 0) ms[i][round] = t;
            }
        }
        System.out.printf(Locale.ROOT, "(%d, %d, %d), %d rounds, medians of best of three%n", BATCH, LEN, CHANNELS, rounds);
        for (int i = 0; i < rows.size(); i++) {
            Arrays.sort(ms[i]);
            double med = ms[i][rounds / 2];
            Row row = rows.get(i);
            System.out.printf(Locale.ROOT, "%-48s %8.2f ms  (min %6.2f, max %6.2f)  %5.0f MiB  %5.1f GB/s%n", row.name(), med,
                    ms[i][0], ms[i][rounds - 1], row.mib(), row.mib() * (1 << 20) / med / 1e6);
        }
        try (var scope = Backends.use(cpu); ProfilerSession session = Profiler.start("linear scan fwd + bwd")) {
            ta.zeroGrad();
            tb.zeroGrad();
            Scans.linearScan(ta, tb, 1).backward(gradH);
            System.out.println(session.report().table());
        }
    }

    private static double maxDiff(float[] e, float[] v) {
        double m = 0;
        for (int i = 0; i < e.length; i++) m = Math.max(m, Double.isNaN(v[i]) ? Double.POSITIVE_INFINITY : Math.abs(e[i] - v[i]));
        return m;
    }

    private interface Range { void run(int from, int to); }

    /** {@code body} over [0, N) in as many pieces as the kernels use (two per core). */
    private static void parallel(Range body) {
        int pieces = 4;
        Parallel.forRange(pieces, 1, (from, to) -> {
            for (int p = from; p < to; p++) body.run((int) ((long) N * p / pieces), (int) ((long) N * (p + 1) / pieces));
        });
    }

    private static void inCpu(CpuBackend cpu, Supplier<Object> body) {
        try (var scope = Backends.use(cpu)) {
            body.get();
        }
    }
}
