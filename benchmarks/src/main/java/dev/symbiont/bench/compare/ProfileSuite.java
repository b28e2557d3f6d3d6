package dev.symbiont.bench.compare;

import dev.symbiont.core.Generator;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.profile.ProfileReport;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.core.profile.ProfilerSession;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each family's training step spends its time, by the profiler's op categories
 * ({@code profile}: the share of self time and ms per step in matmul, attention, scan,
 * elementwise, copy, …), for the language models at one length and the image models at 28×28.
 * The step's hottest ops that state their own FLOPs and bytes are kept too ({@code profile.op}):
 * the roofline places them by arithmetic intensity and attained rate.
 */
final class ProfileSuite implements Suite {
    static final String SUITE = "profile", OPS = "profile.op";
    /** Hot ops kept per family for the roofline. */
    static final int HOT_OPS = 4;

    @Override
    public String id() { return "profile"; }

    @Override
    public List<Measurement> plan(Sizes sizes, Backend backend) {
        List<Measurement> out = new ArrayList<>();
        for (LmFamily f : sizes.families()) {
            out.add(new Measurement(SUITE, f.id(), 0, "profile: " + f.id(), c ->
                    profile(c, f.id(), TrainingStep.of(f.create(sizes.profileSeq(), new Generator(1)), 1, sizes.profileSeq(), new Generator(2)))));
        }
        for (ImageFamily f : ImageFamily.values()) {
            out.add(new Measurement(SUITE, f.id(), 0, "profile: " + f.id(), c ->
                    profile(c, f.id(), TrainingStep.of(f.create(28, new Generator(1)), sizes.imageBatch(), 28, new Generator(2)))));
        }
        return out;
    }

    private static List<Point> profile(MeasureContext c, String family, TrainingStep step) {
        int reps = c.sizes().reps();
        for (int i = 0; i < c.sizes().warmups(); i++) step.run();
        ProfileReport report;
        try (ProfilerSession session = Profiler.start("compare " + family)) {
            for (int i = 0; i < reps; i++) step.run();
            c.backend().synchronize();
            session.close();
            report = session.report();
        }
        Map<String, Double> values = new HashMap<>();
        for (OpCategory cat : OpCategory.values()) {
            ProfileReport.CategoryRow row = report.category(cat);
            if (row.calls() == 0) continue;
            values.put("share." + cat.displayName(), row.share());
            values.put("ms." + cat.displayName(), row.selfNanos() / 1e6 / reps);
        }
        values.put("step_ms", report.wallNanos() / 1e6 / reps);
        values.put("gflop_per_step", report.flops() / 1e9 / reps);
        List<Point> out = new ArrayList<>();
        out.add(c.point(SUITE, family, 0, values));
        int kept = 0;
        for (ProfileReport.OpRow op : report.ops()) {                // by self time, largest first
            if (kept == HOT_OPS) break;
            // self figures: a kernel's own work, not the sum of the ops nested in it (a backward pass, a block)
            if (op.selfFlops() <= 0 || op.selfBytes() <= 0 || op.selfNanos() <= 0) continue;
            out.add(c.point(OPS, family + "/" + op.name(), 0, Map.of("gflops", (double) op.selfFlops() / op.selfNanos(),
                    "intensity", (double) op.selfFlops() / op.selfBytes(), "share", op.share(), "ms", op.selfNanos() / 1e6 / reps)));
            kept++;
        }
        return out;
    }
}
