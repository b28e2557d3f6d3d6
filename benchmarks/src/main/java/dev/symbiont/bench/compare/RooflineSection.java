package dev.symbiont.bench.compare;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The roofline of each backend: the compute roof (the best GEMM's GFLOP/s), the memory roofs
 * (each stream's GB/s), the ridge point between them, and every kernel placed by its arithmetic
 * intensity and attained rate — the GEMMs, the streams and each family's hottest profiled ops.
 */
final class RooflineSection {
    private RooflineSection() {}

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("roofline", "Roofline: what this machine can do");
        b.text("Attainable GFLOP/s = min(peak, bandwidth × arithmetic intensity). The peak is the best square GEMM (2n³ FLOPs); the roofs "
                + "are streaming kernels over operands far larger than the caches (12 bytes per element of a + b and of the triad, "
                + "16 per element of the random gather). Kernels below the ridge point are bound by memory, above it by compute. "
                + "The profiled ops' FLOPs and bytes are the profiler's estimates.");
        List<List<String>> peaks = new ArrayList<>(), kernels = new ArrayList<>();
        for (String backend : r.backends()) {
            List<Point> gemms = r.series(backend, RooflineSuite.GEMM, "gemm");
            if (gemms.isEmpty()) continue;
            Point best = gemms.stream().max(Comparator.comparingDouble(p -> p.value("gflops"))).orElseThrow();
            double peak = best.value("gflops");
            Map<String, Double> roofs = new LinkedHashMap<>();
            for (Point p : r.of(backend, RooflineSuite.STREAM)) roofs.put(p.series(), p.value("gbps"));
            double bandwidth = roofs.entrySet().stream().filter(e -> !e.getKey().equals("gather")).mapToDouble(Map.Entry::getValue).max().orElse(Double.NaN);
            peaks.add(List.of(backend, Fmt.sig(peak, 3) + " (GEMM " + Fmt.num(best.x()) + "³)", Fmt.sig(bandwidth, 3),
                    Fmt.sig(roofs.getOrDefault("gather", Double.NaN), 3), Fmt.sig(peak / bandwidth, 3)));
            List<Charts.Kernel> marks = new ArrayList<>();
            for (Point p : gemms) marks.add(new Charts.Kernel("GEMM", "GEMM " + Fmt.num(p.x()) + "³", p.value("intensity"), p.value("gflops")));
            for (Point p : r.of(backend, RooflineSuite.STREAM)) marks.add(new Charts.Kernel("streams", p.series(), p.value("intensity"), p.value("gflops")));
            for (Point p : r.of(backend, ProfileSuite.OPS)) {
                String family = p.series().substring(0, p.series().indexOf('/'));
                marks.add(new Charts.Kernel(Titles.of(family) + " ops", p.series(), p.value("intensity"), p.value("gflops")));
            }
            for (Charts.Kernel k : marks) {
                if (!(k.intensity() > 0)) continue;
                double roof = Math.min(peak, bandwidth * k.intensity());
                kernels.add(List.of(backend, k.name(), Fmt.sig(k.intensity(), 3), Fmt.sig(k.gflops(), 3), Fmt.sig(roof, 3), Fmt.pct(k.gflops() / roof),
                        k.intensity() < peak / bandwidth ? "memory" : "compute"));
            }
            b.figure("chart-" + backend.replace(':', '-'), "Roofline of " + backend, Charts.roofline("Roofline (" + backend + ")", peak, roofs, marks));
        }
        b.table(List.of("backend", "peak GFLOP/s", "stream GB/s", "random gather GB/s", "ridge point (FLOP/byte)"), peaks);
        b.table(List.of("backend", "kernel", "FLOP/byte", "GFLOP/s", "roof GFLOP/s", "of the roof", "bound by"), kernels);
        Sweep.missing(b, r, RooflineSuite.GEMM, Titles::of);
        Sweep.missing(b, r, RooflineSuite.STREAM, Titles::of);
        return b.build();
    }
}
