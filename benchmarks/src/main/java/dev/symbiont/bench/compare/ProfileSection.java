package dev.symbiont.bench.compare;

import dev.symbiont.core.profile.OpCategory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Where each family's training step spends its time, by the profiler's op categories, and its hottest ops. */
final class ProfileSection {
    private ProfileSection() {}

    static Report.Section build(CompareResults r) {
        Report.SectionBuilder b = new Report.SectionBuilder("profile", "Profile: where a training step's time goes");
        b.text("The profiler's self time per op category over a few training steps (language models at batch 1, images at 28×28), as "
                + "shares of the recorded time. Matrix products and convolutions are the regular, dense compute; elementwise, copy, "
                + "indexing and normalisation move memory; scan is the state-space recurrence; routing is the MoE's dispatch.");
        List<String> header = new ArrayList<>(List.of("family", "backend", "ms per step", "GFLOP per step"));
        for (OpCategory c : OpCategory.values()) header.add(c.displayName());
        List<List<String>> rows = new ArrayList<>(), ops = new ArrayList<>();
        for (String backend : r.backends()) {
            List<Point> pts = r.of(backend, ProfileSuite.SUITE);
            if (pts.isEmpty()) continue;
            List<String> groups = new ArrayList<>();
            Map<String, double[]> shares = new LinkedHashMap<>();
            for (OpCategory c : OpCategory.values()) shares.put(c.displayName(), new double[pts.size()]);
            for (int i = 0; i < pts.size(); i++) {
                Point p = pts.get(i);
                groups.add(Titles.of(p.series()));
                List<String> row = new ArrayList<>(List.of(Titles.of(p.series()), backend, Fmt.sig(p.value("step_ms"), 3), Fmt.sig(p.value("gflop_per_step"), 3)));
                for (OpCategory c : OpCategory.values()) {
                    double share = p.value("share." + c.displayName());
                    row.add(Double.isNaN(share) ? "" : Fmt.pct(share));
                    shares.get(c.displayName())[i] = Double.isNaN(share) ? 0 : share;
                }
                rows.add(row);
            }
            shares.values().removeIf(v -> java.util.Arrays.stream(v).allMatch(s -> s == 0));
            b.figure("shares-" + backend.replace(':', '-'), "Share of self time per op category (" + backend + ")",
                    Charts.stackedShares("Where the step's time goes (" + backend + ")", groups, shares));
            for (Point p : r.of(backend, ProfileSuite.OPS)) {
                ops.add(List.of(p.series(), backend, Fmt.pct(p.value("share")), Fmt.sig(p.value("ms"), 3), Fmt.sig(p.value("gflops"), 3),
                        Fmt.sig(p.value("intensity"), 3)));
            }
        }
        b.table(header, rows);
        b.text("The hottest ops of each step that state their FLOPs and bytes (they are placed on the roofline):");
        b.table(List.of("family/op", "backend", "share of the step", "ms per step", "GFLOP/s", "FLOP/byte"), ops);
        Sweep.missing(b, r, ProfileSuite.SUITE, Titles::of);
        return b.build();
    }
}
