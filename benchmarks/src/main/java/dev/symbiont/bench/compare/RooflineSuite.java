package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.autograd.GradMode;
import dev.symbiont.core.backend.Backend;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * The machine's roofline: the compute roof from square GEMMs (2n³ FLOPs over 3·n² floats, the
 * largest n giving the peak) and the memory roof from streaming kernels over operands well past
 * the last-level cache — the backend's elementwise add (c = a + b: 12 bytes per element) and,
 * on the CPU, a plain-Java triad over reused arrays on every core (a[i] = b[i] + s·c[i], also 12
 * bytes, no allocation in the loop) — plus a gather with random indices, the same bytes read
 * out of order. Each is also a kernel placed on the roofline by its arithmetic intensity.
 */
final class RooflineSuite implements Suite {
    static final String GEMM = "roofline.gemm", STREAM = "roofline.stream";

    @Override
    public String id() { return "roofline"; }

    @Override
    public List<Measurement> plan(Sizes sizes, Backend backend) {
        List<Measurement> out = new ArrayList<>();
        for (int n : sizes.gemmSizes()) out.add(new Measurement(GEMM, "gemm", n, "roofline: GEMM " + n + "³", c -> List.of(gemm(c, n))));
        int floats = sizes.streamFloats();
        out.add(new Measurement(STREAM, "add", floats, "roofline: stream a + b", c -> List.of(add(c, floats))));
        if (backend.name().equals("cpu")) {
            out.add(new Measurement(STREAM, "java-triad", floats, "roofline: stream triad", c -> List.of(triad(c, floats))));
        }
        out.add(new Measurement(STREAM, "gather", floats, "roofline: random gather", c -> List.of(gather(c, floats))));
        return out;
    }

    private static Point gemm(MeasureContext c, int n) {
        Generator g = new Generator(1);
        Tensor a = Tensor.randn(g, n, n), b = Tensor.randn(g, n, n);
        double s;
        try (var noGrad = GradMode.disabled()) {
            s = c.kernelSeconds("gemm", () -> a.matmul(b));
        }
        double flops = 2.0 * n * n * n, bytes = 3.0 * n * n * 4;
        return c.point(GEMM, "gemm", n, Map.of("ms", s * 1e3, "gflops", flops / s / 1e9, "intensity", flops / bytes, "gbps", bytes / s / 1e9));
    }

    private static Point add(MeasureContext c, int n) {
        Generator g = new Generator(2);
        Tensor a = Tensor.randn(g, n), b = Tensor.randn(g, n);
        double s;
        try (var noGrad = GradMode.disabled()) {
            s = c.kernelSeconds("add", () -> a.add(b));
        }
        return stream(c, "add", n, s, 12.0 * n, n);
    }

    /** STREAM's triad on plain arrays, one slice per core: the bandwidth with no allocation and no tensor in the loop. */
    private static Point triad(MeasureContext c, int n) {
        float[] a = new float[n], b = new float[n], d = new float[n];
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < n; i++) { b[i] = (float) r.nextDouble(); d[i] = (float) r.nextDouble(); }
        int parts = Runtime.getRuntime().availableProcessors();
        double s = c.kernelSeconds("triad", () -> IntStream.range(0, parts).parallel().forEach(p -> {
            int from = (int) ((long) n * p / parts), to = (int) ((long) n * (p + 1) / parts);
            for (int i = from; i < to; i++) a[i] = b[i] + 3f * d[i];
        }));
        return stream(c, "java-triad", n, s, 12.0 * n, 2.0 * n);
    }

    /** out[i] = x[idx[i]] with idx a random permutation: 4 bytes read out of order, 8 of index and 4 written per element. */
    private static Point gather(MeasureContext c, int n) {
        SplittableRandom r = new SplittableRandom(4);
        long[] idx = new long[n];
        for (int i = 0; i < n; i++) idx[i] = i;
        for (int i = n - 1; i > 0; i--) { int j = r.nextInt(i + 1); long t = idx[i]; idx[i] = idx[j]; idx[j] = t; }
        Tensor x = Tensor.randn(new Generator(5), n), index = Tensor.fromArray(idx);
        double s;
        try (var noGrad = GradMode.disabled()) {
            s = c.kernelSeconds("gather", () -> x.indexSelect(0, index));
        }
        return stream(c, "gather", n, s, 16.0 * n, 0);
    }

    private static Point stream(MeasureContext c, String series, int n, double s, double bytes, double flops) {
        return c.point(STREAM, series, n, Map.of("ms", s * 1e3, "gbps", bytes / s / 1e9, "gflops", flops / s / 1e9, "intensity", flops / bytes));
    }
}
