package dev.symbiont.bench.compare;

import java.util.List;

import static dev.symbiont.bench.compare.Claim.f;

/**
 * The seed's claims about hardware and the Transformer, as rules over the measurements: its
 * table of GPU-friendly computation (§2.2), the Transformer's levels of parallelism (§3.1),
 * FlashAttention's memory and data movement (§3.2) and the resource table (§7.2).
 */
final class HardwareClaims {
    private HardwareClaims() {}

    static final String T22 = "§2.2 GPU-friendly computation", T31 = "§3.1 Transformer parallelism", T32 = "§3.2 FlashAttention",
            T72 = "§7.2 Resources";

    static List<Claim> all() {
        return List.of(
                new Claim(T22, "Compute pattern", "many identical operations are friendly; sequence-dependent computation is not",
                        "GPT's prefill (all tokens in one call) reads ≥ 5× the tokens per second of its decoding (one token per call)",
                        HardwareClaims::tokenParallel),
                new Claim(T22, "Memory access", "contiguous, regular access is friendly; random, jumping access is not",
                        "the best contiguous stream moves ≥ 1.5× the bytes per second of a gather at random indices", HardwareClaims::access),
                new Claim(T22, "Control flow", "one execution path is friendly; frequent branches (warp divergence) are not",
                        "—", m -> Claim.Evidence.notMeasurable("warp divergence is a GPU effect; no suite runs branchy kernels")),
                new Claim(T22, "Data reuse", "high reuse is friendly; low reuse is not",
                        "GEMM (reuse grows with n) attains ≥ 10× the GFLOP/s of an elementwise add (no reuse)", HardwareClaims::reuse),
                new Claim(T31, "Token level", "every token of a sequence is computed at once, without the RNN's dependency",
                        "GPT's prefill reads ≥ 5× the tokens per second of its decoding", HardwareClaims::tokenParallel),
                new Claim(T31, "Head level", "the heads are computed independently",
                        "at a fixed width, FlashAttention's forward + backward with the most heads takes ≤ 1.25× the time with one head "
                                + "(the same FLOPs): more heads are more independent work, not more sequential steps", HardwareClaims::heads),
                new Claim(T31, "Batch level", "many samples at once maximise the hardware's use",
                        "GPT's training throughput (tokens/s) at the largest batch is ≥ 1.2× that at batch 1", HardwareClaims::batch),
                new Claim(T31, "Layer level", "layers can be pipelined", "—",
                        m -> Claim.Evidence.notMeasurable("pipelining layers needs several devices; compare runs on one")),
                new Claim(T32, "Materialised attention", "stores the whole L×L attention matrix: memory grows with L²",
                        "the reference's peak-memory exponent over the upper half of L is ≥ 1.7",
                        m -> attentionMemory(m, "reference", k -> k >= 1.7)),
                new Claim(T32, "FlashAttention memory", "tiles and an online softmax never store the matrix",
                        "FlashAttention's peak-memory exponent over the upper half of L is ≤ 1.3", m -> attentionMemory(m, "flash", k -> k <= 1.3)),
                new Claim(T32, "FlashAttention time", "less data moved between memory levels makes it faster",
                        "FlashAttention's forward + backward is faster than the reference's at the largest L both ran", HardwareClaims::flashTime),
                new Claim(T72, "Bandwidth", "memory bandwidth bounds data-intensive operations",
                        "the elementwise add reaches ≥ 30% of the best stream bandwidth while attaining < 10% of the GEMM peak's GFLOP/s",
                        HardwareClaims::bandwidthBound));
    }

    private static Claim.Evidence tokenParallel(Claim.Measured m) {
        Point p = m.last(GenerationSuite.SUITE, LmFamily.GPT.id());
        double ratio = p.value("prefill_tokens_per_s") / p.value("decode_tokens_per_s");
        return Claim.Evidence.of(ratio >= 5, f("prefill %s tok/s vs decode %s tok/s at context %s: %.1f×",
                Fmt.sig(p.value("prefill_tokens_per_s"), 3), Fmt.sig(p.value("decode_tokens_per_s"), 3), Fmt.num(p.x()), ratio));
    }

    private static Claim.Evidence access(Claim.Measured m) {
        double gather = m.last(RooflineSuite.STREAM, "gather").value("gbps");
        double stream = m.last(RooflineSuite.STREAM, "add").value("gbps");
        String best = "add";
        if (!m.results().series(m.backend(), RooflineSuite.STREAM, "java-triad").isEmpty()) {
            double triad = m.last(RooflineSuite.STREAM, "java-triad").value("gbps");
            if (triad > stream) { stream = triad; best = "triad"; }
        }
        return Claim.Evidence.of(stream >= 1.5 * gather, f("contiguous (%s) %s GB/s vs random gather %s GB/s: %.1f×", best, Fmt.sig(stream, 3),
                Fmt.sig(gather, 3), stream / gather));
    }

    private static Claim.Evidence reuse(Claim.Measured m) {
        Point gemm = m.series(RooflineSuite.GEMM, "gemm").stream().max(java.util.Comparator.comparingDouble(p -> p.value("gflops"))).orElseThrow();
        double add = m.last(RooflineSuite.STREAM, "add").value("gflops");
        double ratio = gemm.value("gflops") / add;
        return Claim.Evidence.of(ratio >= 10, f("GEMM %s³ %s GFLOP/s vs add %s GFLOP/s: %.0f×", Fmt.num(gemm.x()), Fmt.sig(gemm.value("gflops"), 3),
                Fmt.sig(add, 3), ratio));
    }

    private static Claim.Evidence batch(Claim.Measured m) {
        List<Point> pts = m.series(TrainingSuite.BATCH, LmFamily.GPT.id());
        if (pts.size() < 2) throw new Claim.Missing("two batches of GPT");
        double ratio = pts.getLast().value("tokens_per_s") / pts.getFirst().value("tokens_per_s");
        return Claim.Evidence.of(ratio >= 1.2, f("%s tok/s at batch %s vs %s at batch %s: %.2f×", Fmt.sig(pts.getLast().value("tokens_per_s"), 3),
                Fmt.num(pts.getLast().x()), Fmt.sig(pts.getFirst().value("tokens_per_s"), 3), Fmt.num(pts.getFirst().x()), ratio));
    }

    private static Claim.Evidence attentionMemory(Claim.Measured m, String impl, java.util.function.DoublePredicate holds) {
        ScalingFit fit = m.fit(AttentionSuite.SUITE, impl, "peak_mib", true);
        Point last = m.last(AttentionSuite.SUITE, impl);
        return Claim.Evidence.of(holds.test(fit.exponent()), f("peak memory ∝ L^%s; %s MiB at L = %s", Fmt.exp(fit.exponent()),
                Fmt.sig(last.value("peak_mib"), 3), Fmt.num(last.x())));
    }

    private static Claim.Evidence heads(Claim.Measured m) {
        List<Point> sweep = m.series(AttentionSuite.HEADS_SUITE, "flash");
        Point one = sweep.getFirst(), most = sweep.getLast();
        double ratio = most.value("ms") / one.value("ms");
        return Claim.Evidence.of(ratio <= 1.25, f("width %d at L = %s: %s ms as 1 head of %d, %s ms as %s heads of %s (%.2f×)",
                AttentionSuite.HEADS_WIDTH, Fmt.num(one.value("seq")), Fmt.sig(one.value("ms"), 3), AttentionSuite.HEADS_WIDTH,
                Fmt.sig(most.value("ms"), 3), Fmt.num(most.x()), Fmt.num(AttentionSuite.HEADS_WIDTH / most.x()), ratio));
    }

    private static Claim.Evidence flashTime(Claim.Measured m) {
        double x = m.commonLast(AttentionSuite.SUITE, "flash", "reference");
        double flash = m.at(AttentionSuite.SUITE, "flash", x).value("ms"), ref = m.at(AttentionSuite.SUITE, "reference", x).value("ms");
        return Claim.Evidence.of(flash < ref, f("%s ms vs %s ms at L = %s (%.2f×)", Fmt.sig(flash, 3), Fmt.sig(ref, 3), Fmt.num(x), ref / flash));
    }

    private static Claim.Evidence bandwidthBound(Claim.Measured m) {
        Point add = m.last(RooflineSuite.STREAM, "add");
        double best = m.results().of(m.backend(), RooflineSuite.STREAM).stream().filter(p -> !p.series().equals("gather"))
                .mapToDouble(p -> p.value("gbps")).max().orElseThrow();
        double peak = m.series(RooflineSuite.GEMM, "gemm").stream().mapToDouble(p -> p.value("gflops")).max().orElseThrow();
        double ofBandwidth = add.value("gbps") / best, ofPeak = add.value("gflops") / peak;
        return Claim.Evidence.of(ofBandwidth >= 0.3 && ofPeak < 0.1, f("add: %s GB/s (%.0f%% of the best stream), %s GFLOP/s (%.1f%% of the GEMM peak)",
                Fmt.sig(add.value("gbps"), 3), 100 * ofBandwidth, Fmt.sig(add.value("gflops"), 3), 100 * ofPeak));
    }
}
