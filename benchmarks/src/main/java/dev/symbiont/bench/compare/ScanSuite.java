package dev.symbiont.bench.compare;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.scan.Scans;
import dev.symbiont.cpu.CpuThreads;
import dev.symbiont.cpu.kernels.LinearRecurrence;
import dev.symbiont.cpu.kernels.ScanMath;
import dev.symbiont.cpu.kernels.TreeScans;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * The linear recurrence h_t = a_t·h_{t−1} + x_t (the selective SSM's core) against its length L
 * ({@code scan}), batch 4 × the sizes' channels, by each CPU kernel: sequential (one walk along
 * L), chunked (L cut into 2·cores chunks, their carries combined, then fixed up), Hillis–Steele
 * and Blelloch (the classic parallel prefix scans). Per point: the median time, the rounds of
 * dependent work (depth) and the combines (a_j, b_j)∘(a_i, b_i) per column (work), and ns per
 * combine. The tree scans count their own rounds and combines; the sequential and chunked
 * kernels' are their structure's: L rounds and L − 1 combines, and ⌈L/C⌉ + C + ⌈L/C⌉ rounds and
 * about 2L combines over C chunks. The op itself ({@code Scans.linearScan}, forward) is timed on
 * every backend; the raw kernels only on the CPU, whose arrays they walk.
 */
final class ScanSuite implements Suite {
    static final String SUITE = "scan";
    static final int BATCH = 4;
    static final List<String> KERNELS = List.of("sequential", "chunked", "hillis-steele", "blelloch");

    @Override
    public String id() { return "scans"; }

    @Override
    public List<Measurement> plan(Sizes sizes, Backend backend) {
        List<Measurement> out = new ArrayList<>();
        boolean cpu = backend.name().equals("cpu");
        for (int len : sizes.scanLengths()) {
            if (cpu) {
                for (String kernel : KERNELS) {
                    out.add(new Measurement(SUITE, kernel, len, "scans: " + kernel + " L=" + len, c -> List.of(kernel(c, kernel, len))));
                }
            }
            out.add(new Measurement(SUITE, "op", len, "scans: linearScan op L=" + len, c -> List.of(op(c, len))));
        }
        return out;
    }

    private static Point kernel(MeasureContext c, String kernel, int len) {
        int channels = c.sizes().scanChannels(), n = BATCH * len * channels;
        LinearRecurrence.Dims dims = new LinearRecurrence.Dims(BATCH, len, channels, false);
        LinearRecurrence.Run a = new LinearRecurrence.Run(uniform(n, 0.5, 1, 5), 0), x = new LinearRecurrence.Run(uniform(n, -1, 1, 6), 0);
        float[] h = new float[n];
        ScanMath rows = ScanMath.of(true);
        int chunks = 2 * CpuThreads.parallelism();
        TreeScans.Cost[] cost = new TreeScans.Cost[1];
        double s = c.kernelSeconds("scan " + kernel, () -> {
            switch (kernel) {
                case "sequential" -> {
                    LinearRecurrence.sequential(rows, dims, a, x, h);
                    cost[0] = new TreeScans.Cost(len, len - 1);
                }
                case "chunked" -> {
                    LinearRecurrence.chunked(rows, dims, a, x, h, chunks);
                    int per = (len + chunks - 1) / chunks;
                    cost[0] = new TreeScans.Cost(2L * per + chunks, 2L * len - per);
                }
                case "hillis-steele" -> cost[0] = TreeScans.hillisSteele(dims, a, x, h);
                case "blelloch" -> cost[0] = TreeScans.blelloch(dims, a, x, h);
                default -> throw new IllegalArgumentException("ScanSuite: unknown kernel " + kernel);
            }
        });
        double columns = (double) BATCH * channels;
        return c.point(SUITE, kernel, len, Map.of("ms", s * 1e3, "rounds", (double) cost[0].steps(), "combines", (double) cost[0].combines(),
                "ns_per_combine", s * 1e9 / (cost[0].combines() * columns)));
    }

    /** The op as models call it: its backend picks the kernel. */
    private static Point op(MeasureContext c, int len) {
        int channels = c.sizes().scanChannels(), n = BATCH * len * channels;
        Tensor a = Tensor.fromArray(uniform(n, 0.5, 1, 5), BATCH, len, channels), x = Tensor.fromArray(uniform(n, -1, 1, 6), BATCH, len, channels);
        double s;
        try (var noGrad = dev.symbiont.core.autograd.GradMode.disabled()) {
            s = c.kernelSeconds("scan op", () -> Scans.linearScan(a, x, 1));
        }
        return c.point(SUITE, "op", len, Map.of("ms", s * 1e3));
    }

    private static float[] uniform(int n, double lo, double hi, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = (float) r.nextDouble(lo, hi);
        return v;
    }
}
