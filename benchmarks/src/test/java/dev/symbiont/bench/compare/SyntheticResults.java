package dev.symbiont.bench.compare;

import java.util.HashMap;
import java.util.Map;

/**
 * Results of every suite made from formulas with known exponents, as a run on {@code backend}
 * would record them: the report's pieces are tested on them without measuring anything.
 * GPT's step grows with L² above L = 1024, the SSMs' with L; the reference attention's memory
 * with L², flash's with L; the MoE's time is flat in E while its total parameters grow with E.
 */
final class SyntheticResults {
    private SyntheticResults() {}

    static final int[] LENGTHS = {256, 512, 1024, 2048, 4096};

    static CompareResults of(String... backends) {
        CompareResults r = new CompareResults();
        for (String backend : backends) add(r, backend, backend.startsWith("cuda") ? 0.05 : 1);
        return r;
    }

    private static void add(CompareResults r, String backend, double speed) {
        r.putRun(new RunInfo(backend, backend, "Synthetic CPU", 2, 4096, "25", "Linux", "quick", "2026-01-01T00:00:00Z", 300, true));
        for (int n : new int[] {128, 256, 512}) {
            r.put(Point.of(backend, RooflineSuite.GEMM, "gemm", n, Map.of("gflops", 10.0 * n / 128 / speed, "intensity", n / 6.0, "ms", 1.0)));
        }
        r.put(Point.of(backend, RooflineSuite.STREAM, "add", 1 << 23, Map.of("gbps", 12.0, "gflops", 1.0, "intensity", 1 / 12.0)));
        r.put(Point.of(backend, RooflineSuite.STREAM, "java-triad", 1 << 23, Map.of("gbps", 24.0, "gflops", 4.0, "intensity", 1 / 6.0)));
        r.put(Point.of(backend, RooflineSuite.STREAM, "gather", 1 << 23, Map.of("gbps", 2.0, "intensity", 0.0)));
        for (LmFamily f : LmFamily.values()) {
            for (int len : LENGTHS) {
                double ms = speed * (f.attends() ? len + len * (double) len / 1024 : len) / 10;
                r.put(Point.of(backend, TrainingSuite.SEQ, f.id(), len, Map.of("ms", ms, "peak_mib", len / 40.0, "tokens_per_s", len / ms * 1e3)));
            }
            for (int batch : new int[] {1, 2, 4}) {
                double ms = speed * (20 + 10 * batch);
                r.put(Point.of(backend, TrainingSuite.BATCH, f.id(), batch, Map.of("ms", ms, "peak_mib", 6.0 * batch, "tokens_per_s", 256 * batch / ms * 1e3)));
            }
            for (int context : new int[] {128, 512, 2048}) {
                double perToken = f.attends() ? 1 + context / 512.0 : 2, state = f.attends() ? context * 2.0 : 24;
                r.put(Point.of(backend, GenerationSuite.SUITE, f.id(), context, Map.of("ms_per_token", perToken, "state_kib", state,
                        "prefill_ms", context / 20.0, "prefill_tokens_per_s", 20000.0, "decode_tokens_per_s", 1000 / perToken)));
            }
        }
        for (int heads : AttentionSuite.HEAD_COUNTS) {   // the same FLOPs, a little slower per extra head: independent heads
            r.put(Point.of(backend, AttentionSuite.HEADS_SUITE, "flash", heads, Map.of("ms", 10 + 0.2 * heads, "seq", 1024.0)));
        }
        for (int len : LENGTHS) {
            r.put(Point.of(backend, AttentionSuite.SUITE, "flash", len, Map.of("ms", len * (double) len / 1e5, "peak_mib", len / 100.0)));
            r.put(Point.of(backend, AttentionSuite.SUITE, "reference", len, Map.of("ms", 2 * len * (double) len / 1e5, "peak_mib", len * (double) len / 1e5)));
            int log = 32 - Integer.numberOfLeadingZeros(len - 1);
            scan(r, backend, "sequential", len, len, len - 1, 1);
            scan(r, backend, "chunked", len, 2 * len / 4 + 4, 2 * len, 1.5);
            scan(r, backend, "hillis-steele", len, log, (long) len * log - len + 1, 3);
            scan(r, backend, "blelloch", len, 2 * log + 1, 3L * len - 2, 2);
        }
        r.put(Point.missing(backend, TrainingSuite.SEQ, LmFamily.GPT.id(), 8192, "skipped: one call would take about 9 s"));
        for (int e : new int[] {2, 4, 8}) moe(r, backend, MoeSuite.EXPERTS, e, 2, e);
        for (int k : new int[] {1, 2, 4}) moe(r, backend, MoeSuite.TOPK, 8, k, k);
        for (String family : new String[] {"gpt", "mamba", "resnet"}) {
            Map<String, Double> v = new HashMap<>(Map.of("share.matmul", 0.5, "share.elementwise", 0.2, "step_ms", 100.0, "gflop_per_step", 1.0));
            v.put(family.equals("mamba") ? "share.scan" : family.equals("gpt") ? "share.attention" : "share.convolution", 0.3);
            r.put(Point.of(backend, ProfileSuite.SUITE, family, 0, v));
            r.put(Point.of(backend, ProfileSuite.OPS, family + "/linear", 0, Map.of("gflops", 5.0, "intensity", 8.0, "share", 0.4, "ms", 40.0)));
        }
        for (ImageFamily f : ImageFamily.values()) {
            for (int side : new int[] {28, 56}) {
                r.put(Point.of(backend, ImageSuite.SIDE, f.id(), side, Map.of("ms", side * (double) side / 10, "peak_mib", side / 2.0, "images_per_s", 80.0)));
            }
        }
    }

    private static void scan(CompareResults r, String backend, String kernel, int len, double rounds, double combines, double nsPerCombine) {
        r.put(Point.of(backend, ScanSuite.SUITE, kernel, len, Map.of("ms", combines * nsPerCombine * 1024 / 1e6, "rounds", rounds, "combines", combines,
                "ns_per_combine", nsPerCombine)));
    }

    private static void moe(CompareResults r, String backend, String suite, int experts, int k, double x) {
        double expert = 65_664, router = 128.0 * experts;
        r.put(Point.of(backend, suite, "moe", x, Map.of("params_total", router + experts * expert, "params_active", router + k * expert,
                "experts", (double) experts, "top_k", (double) k, "gflop", 0.1 * k, "ms", 5.0 * k)));
    }
}
