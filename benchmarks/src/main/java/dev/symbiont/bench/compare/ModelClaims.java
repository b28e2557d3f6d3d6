package dev.symbiont.bench.compare;

import java.util.List;

import static dev.symbiont.bench.compare.Claim.f;

/**
 * The seed's claims about state-space models, scans, mixtures of experts and CNNs, as rules
 * over the measurements: the SSM's theoretical advantages (§4.1), the serial SSM against the
 * parallel scan (§4.2, the table), the MoE's parameters and compute (§5.3) and the CNNs' GPU fit (§6.1).
 */
final class ModelClaims {
    private ModelClaims() {}

    static final String T41 = "§4.1 SSM in theory", T42 = "§4.2 Serial SSM vs parallel scan", T53 = "§5.3 MoE vs dense", T61 = "§6.1 CNNs";

    static List<Claim> all() {
        return List.of(
                new Claim(T41, "Linear complexity (Mamba-1)", "O(n), not attention's O(n²)",
                        "Mamba-1's training-step time exponent in L is ≤ 1.25", m -> linear(m, LmFamily.MAMBA)),
                new Claim(T41, "Linear complexity (Mamba-2)", "O(n), not attention's O(n²)",
                        "Mamba-2's training-step time exponent in L is ≤ 1.25", m -> linear(m, LmFamily.MAMBA2)),
                new Claim(T41, "Quadratic complexity (Transformer)", "attention costs O(n²)",
                        "GPT's training-step time exponent over the upper half of L is ≥ 1.5", ModelClaims::quadratic),
                new Claim(T41, "Constant memory", "the hidden state does not grow with the sequence length",
                        "Mamba-1's decoding-state bytes have exponent |k| ≤ 0.05 in the context (GPT's KV cache shown beside)", ModelClaims::constantState),
                new Claim(T41, "Long sequences", "in theory any length: a token costs the same however long the context",
                        "Mamba-1's decode time per token has exponent ≤ 0.2 in the context (GPT's shown beside)", ModelClaims::flatDecode),
                new Claim(T42, "Time complexity (depth)", "serial O(n); parallel scan O(log n)",
                        "the rounds counted: sequential = L, Hillis–Steele = ⌈log₂ L⌉, Blelloch ≤ 2⌈log₂ L⌉ + 1, at every L", ModelClaims::depth),
                new Claim(T42, "Work (Hillis–Steele)", "serial O(n); parallel scan O(n log n)",
                        "Hillis–Steele's combines per column are ≥ ½·L·log₂ L at the largest L", ModelClaims::workHillisSteele),
                new Claim(T42, "Work (Blelloch)", "parallel scan O(n log n)",
                        "confirmed if Blelloch's combines per column exceed 3L at the largest L; refuted when they stay within 3L (work-efficient)",
                        ModelClaims::workBlelloch),
                new Claim(T42, "Memory access", "serial: contiguous; parallel scan: strided",
                        "both tree scans spend more ns per combine than the sequential walk at the largest L", ModelClaims::access),
                new Claim(T42, "Synchronisation", "serial: none; parallel scan: log n global barriers",
                        "Hillis–Steele's rounds (one parallel region and barrier each) = ⌈log₂ L⌉ at the largest L; the sequential kernel has one",
                        ModelClaims::barriers),
                new Claim(T42, "Practical speed on a CPU", "the serial SSM is faster on a CPU",
                        "on the CPU backend the sequential kernel beats both tree scans at the largest L", ModelClaims::serialFaster),
                new Claim(T42, "Practical speed on a GPU", "the parallel scan is slower on a GPU", "—",
                        m -> Claim.Evidence.notMeasurable("the tree scans are CPU kernels; a GPU backend's scan op has no serial twin on the device")),
                new Claim(T53, "Total parameters", "N × E (E experts)",
                        "the MoE layer's total parameters have exponent 0.85–1.1 in E", ModelClaims::totalParams),
                new Claim(T53, "Active parameters", "N × K/E of the total (K = top-k)",
                        "active ÷ total is within 15% of k/E at every E and k measured", ModelClaims::activeFraction),
                new Claim(T53, "Compute", "only the active parameters compute: the MoE is cheaper than its size",
                        "the layer's time at fixed k has exponent ≤ 0.35 in E (total parameters grow ∝ E)", ModelClaims::computeFollowsActive),
                new Claim(T53, "Specialisation", "experts specialise", "—",
                        m -> Claim.Evidence.notMeasurable("a property of trained models; compare times untrained ones")),
                cnn("ResNet", "residual connections; GPU fit excellent", ImageFamily.RESNET),
                cnn("ConvNeXt", "borrows the Transformer's design; GPU fit excellent", ImageFamily.CONVNEXT),
                new Claim(T61, "EfficientNet", "compound scaling; GPU fit good", "—", m -> Claim.Evidence.notMeasured("EfficientNet (not in the model zoo)")));
    }

    private static Claim.Evidence linear(Claim.Measured m, LmFamily f) {
        ScalingFit fit = m.fit(TrainingSuite.SEQ, f.id(), "ms", false);
        return Claim.Evidence.of(fit.exponent() <= 1.25, f("time ∝ L^%s (R² %s) over L = %s…%s", Fmt.exp(fit.exponent()), Fmt.exp(fit.r2()),
                Fmt.num(m.series(TrainingSuite.SEQ, f.id()).getFirst().x()), Fmt.num(m.last(TrainingSuite.SEQ, f.id()).x())));
    }

    private static Claim.Evidence quadratic(Claim.Measured m) {
        ScalingFit upper = m.fit(TrainingSuite.SEQ, LmFamily.GPT.id(), "ms", true), all = m.fit(TrainingSuite.SEQ, LmFamily.GPT.id(), "ms", false);
        return Claim.Evidence.of(upper.exponent() >= 1.5, f("time ∝ L^%s over the upper half (L^%s over all) up to L = %s", Fmt.exp(upper.exponent()),
                Fmt.exp(all.exponent()), Fmt.num(m.last(TrainingSuite.SEQ, LmFamily.GPT.id()).x())));
    }

    private static Claim.Evidence constantState(Claim.Measured m) {
        ScalingFit mamba = m.fit(GenerationSuite.SUITE, LmFamily.MAMBA.id(), "state_kib", false);
        ScalingFit gpt = m.fit(GenerationSuite.SUITE, LmFamily.GPT.id(), "state_kib", false);
        return Claim.Evidence.of(Math.abs(mamba.exponent()) <= 0.05, f("Mamba-1 state ∝ context^%s (%s KiB); GPT's KV cache ∝ context^%s",
                Fmt.exp(mamba.exponent()), Fmt.sig(m.last(GenerationSuite.SUITE, LmFamily.MAMBA.id()).value("state_kib"), 3), Fmt.exp(gpt.exponent())));
    }

    private static Claim.Evidence flatDecode(Claim.Measured m) {
        ScalingFit mamba = m.fit(GenerationSuite.SUITE, LmFamily.MAMBA.id(), "ms_per_token", false);
        ScalingFit gpt = m.fit(GenerationSuite.SUITE, LmFamily.GPT.id(), "ms_per_token", false);
        return Claim.Evidence.of(mamba.exponent() <= 0.2, f("Mamba-1 ms/token ∝ context^%s; GPT's ∝ context^%s",
                Fmt.exp(mamba.exponent()), Fmt.exp(gpt.exponent())));
    }

    private static int log2Ceil(double len) { return 64 - Long.numberOfLeadingZeros((long) len - 1); }

    private static Claim.Evidence depth(Claim.Measured m) {
        boolean holds = true;
        for (Point p : m.series(ScanSuite.SUITE, "sequential")) holds &= p.value("rounds") == p.x();
        for (Point p : m.series(ScanSuite.SUITE, "hillis-steele")) holds &= p.value("rounds") == log2Ceil(p.x());
        for (Point p : m.series(ScanSuite.SUITE, "blelloch")) holds &= p.value("rounds") <= 2 * log2Ceil(p.x()) + 1;
        Point seq = m.last(ScanSuite.SUITE, "sequential"), hs = m.last(ScanSuite.SUITE, "hillis-steele"), bl = m.last(ScanSuite.SUITE, "blelloch");
        return Claim.Evidence.of(holds, f("rounds at L = %s: sequential %s, Hillis–Steele %s, Blelloch %s", Fmt.num(seq.x()),
                Fmt.num(seq.value("rounds")), Fmt.num(hs.value("rounds")), Fmt.num(bl.value("rounds"))));
    }

    private static Claim.Evidence workHillisSteele(Claim.Measured m) {
        Point hs = m.last(ScanSuite.SUITE, "hillis-steele");
        double nlogn = hs.x() * log2Ceil(hs.x());
        return Claim.Evidence.of(hs.value("combines") >= 0.5 * nlogn, f("%s combines per column at L = %s (L·log₂L = %s; sequential: %s)",
                Fmt.num(hs.value("combines")), Fmt.num(hs.x()), Fmt.num(nlogn), Fmt.num(m.last(ScanSuite.SUITE, "sequential").value("combines"))));
    }

    private static Claim.Evidence workBlelloch(Claim.Measured m) {
        Point bl = m.last(ScanSuite.SUITE, "blelloch");
        double perElement = bl.value("combines") / bl.x();
        return Claim.Evidence.of(perElement > 3, f("%s combines per column at L = %s: %.2f per element", Fmt.num(bl.value("combines")),
                Fmt.num(bl.x()), perElement));
    }

    private static Claim.Evidence access(Claim.Measured m) {
        double seq = m.last(ScanSuite.SUITE, "sequential").value("ns_per_combine");
        double hs = m.last(ScanSuite.SUITE, "hillis-steele").value("ns_per_combine"), bl = m.last(ScanSuite.SUITE, "blelloch").value("ns_per_combine");
        return Claim.Evidence.of(hs > seq && bl > seq, f("ns per combine: sequential %s, Hillis–Steele %s, Blelloch %s", Fmt.sig(seq, 3),
                Fmt.sig(hs, 3), Fmt.sig(bl, 3)));
    }

    private static Claim.Evidence barriers(Claim.Measured m) {
        Point hs = m.last(ScanSuite.SUITE, "hillis-steele");
        return Claim.Evidence.of(hs.value("rounds") == log2Ceil(hs.x()), f("Hillis–Steele: %s parallel rounds at L = %s; sequential: 1",
                Fmt.num(hs.value("rounds")), Fmt.num(hs.x())));
    }

    private static Claim.Evidence serialFaster(Claim.Measured m) {
        if (!m.cpu()) return Claim.Evidence.notMeasurable("the serial and tree scan kernels run on the CPU backend only");
        Point seq = m.last(ScanSuite.SUITE, "sequential");
        double hs = m.at(ScanSuite.SUITE, "hillis-steele", seq.x()).value("ms"), bl = m.at(ScanSuite.SUITE, "blelloch", seq.x()).value("ms");
        List<Point> chunked = m.results().series(m.backend(), ScanSuite.SUITE, "chunked");
        String chunk = chunked.isEmpty() ? "" : f(", chunked %s ms", Fmt.sig(chunked.getLast().value("ms"), 3));
        return Claim.Evidence.of(seq.value("ms") < Math.min(hs, bl), f("L = %s: sequential %s ms, Hillis–Steele %s ms, Blelloch %s ms%s",
                Fmt.num(seq.x()), Fmt.sig(seq.value("ms"), 3), Fmt.sig(hs, 3), Fmt.sig(bl, 3), chunk));
    }

    private static Claim.Evidence totalParams(Claim.Measured m) {
        ScalingFit fit = m.fit(MoeSuite.EXPERTS, "moe", "params_total", false);
        Point last = m.last(MoeSuite.EXPERTS, "moe");
        return Claim.Evidence.of(fit.exponent() >= 0.85 && fit.exponent() <= 1.1, f("total ∝ E^%s (%s parameters at E = %s)",
                Fmt.exp(fit.exponent()), Fmt.num(last.value("params_total")), Fmt.num(last.x())));
    }

    private static Claim.Evidence activeFraction(Claim.Measured m) {
        double worst = 0;
        String where = "";
        for (String suite : List.of(MoeSuite.EXPERTS, MoeSuite.TOPK)) {
            for (Point p : m.series(suite, "moe")) {
                double expected = p.value("top_k") / p.value("experts"), got = p.value("params_active") / p.value("params_total");
                double off = Math.abs(got / expected - 1);
                if (off >= worst) { worst = off; where = f("E = %s, k = %s: %.3f vs k/E = %.3f", Fmt.num(p.value("experts")), Fmt.num(p.value("top_k")), got, expected); }
            }
        }
        return Claim.Evidence.of(worst <= 0.15, "furthest: " + where);
    }

    private static Claim.Evidence computeFollowsActive(Claim.Measured m) {
        ScalingFit time = m.fit(MoeSuite.EXPERTS, "moe", "ms", false), flops = m.fit(MoeSuite.EXPERTS, "moe", "gflop", false);
        return Claim.Evidence.of(time.exponent() <= 0.35, f("time ∝ E^%s, counted FLOPs ∝ E^%s, total parameters ∝ E^%s", Fmt.exp(time.exponent()),
                Fmt.exp(flops.exponent()), Fmt.exp(m.fit(MoeSuite.EXPERTS, "moe", "params_total", false).exponent())));
    }

    private static Claim cnn(String name, String seed, ImageFamily f) {
        return new Claim(T61, name, seed, "a GPU-fit rating, not a measurement: the training throughput and the share of dense compute are shown", m -> {
            Point step = m.series(ImageSuite.SIDE, f.id()).getFirst();
            String share = "";
            List<Point> profile = m.results().series(m.backend(), ProfileSuite.SUITE, f.id());
            if (!profile.isEmpty()) {
                Point p = profile.getFirst();
                share = f("; %s of the step in convolution + matmul", Fmt.pct(nz(p.value("share.convolution")) + nz(p.value("share.matmul"))));
            }
            return Claim.Evidence.notMeasurable(f("%s images/s at %s×%s%s", Fmt.sig(step.value("images_per_s"), 3), Fmt.num(step.x()), Fmt.num(step.x()), share));
        });
    }

    private static double nz(double v) { return Double.isNaN(v) ? 0 : v; }
}
