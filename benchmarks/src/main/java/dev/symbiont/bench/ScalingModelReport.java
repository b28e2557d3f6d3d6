package dev.symbiont.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A model, not a measurement, of data-parallel scaling at 8 … 64 ranks: fits t = α + β·n to a
 * two-rank all-reduce sweep ({@link MpiAllReduceReport}'s rows, across a network; sizes up to
 * {@link #FIT_MAX_BYTES}), takes the
 * ring all-reduce of {@link RingAllReduceModel} with that α on the measured link and on 10 and
 * 100 Gb/s links, and for each of the main job's models ({@link MainJobModels}: parameters × 4
 * bytes of gradients; the one-rank step and backward times of {@link DataParallelScalingReport},
 * the mean of its {@code solo} rows, else of its one-rank {@code local} rows: the solo step is
 * measured in the same job as the others and after their warm-up too, where a separate one-rank
 * job of a few steps still runs partly uncompiled code)
 * prints the predicted weak-scaling efficiency with and without overlap of the all-reduce and
 * backward.
 *
 * <p>Arguments: the sweep's output file, the scaling report's output file, and which rows the
 * projection uses ({@code tensor} by default: the path training takes, staging and MPI thread
 * included).
 */
public final class ScalingModelReport {
    static final int[] RANKS = {8, 16, 32, 64};
    static final double[] LINKS_GBIT = {10, 100};
    /**
     * The largest size fitted. From 32 MiB up Open MPI's all-reduce takes a temporary buffer that
     * glibc maps afresh on every call (its mmap threshold stops growing at 32 MiB), and the page
     * faults, costly on a VM, make those sizes several times slower in C and Java alike; the
     * models' gradients (3–10 MiB) lie below.
     */
    static final long FIT_MAX_BYTES = 16L << 20;

    private ScalingModelReport() {}

    public static void main(String[] args) throws IOException {
        List<Map<String, String>> sweep = rows(Path.of(args[0]), "allreduce");
        List<Map<String, String>> scaling = rows(Path.of(args[1]), "scaling");
        String projected = args.length > 2 ? args[2] : "tensor";
        Map<String, AlphaBetaFit> fits = new LinkedHashMap<>();
        for (String impl : List.of("c", "ffm", "tensor")) {
            List<Map<String, String>> mine = sweep.stream().filter(r -> r.get("impl").equals(impl) && r.get("ranks").equals("2")
                    && Long.parseLong(r.get("bytes")) <= FIT_MAX_BYTES).toList();
            if (mine.size() < 2) continue;
            double[] n = mine.stream().mapToDouble(r -> Double.parseDouble(r.get("bytes"))).toArray();
            double[] t = mine.stream().mapToDouble(r -> Double.parseDouble(r.get("us")) / 1e6).toArray();
            AlphaBetaFit fit = AlphaBetaFit.fit(n, t);
            fits.put(impl, fit);
            System.out.printf(Locale.ROOT, "fit impl=%s points=%d alpha_us=%.1f beta_ns_per_byte=%.4f bandwidth_gbit=%.2f rms_relative_residual=%.2f%n",
                    impl, n.length, fit.alpha() * 1e6, fit.beta() * 1e9, 8 / fit.beta() / 1e9, fit.rmsRelativeResidual());
        }
        AlphaBetaFit fit = fits.get(projected);
        if (fit == null) throw new IllegalArgumentException(args[0] + " has no two-rank impl=" + projected + " rows to fit");
        RingAllReduceModel measured = RingAllReduceModel.fromTwoRanks(fit);
        System.out.printf(Locale.ROOT, "ring from impl=%s: alpha_us_per_step=%.1f, measured link %.2f Gb/s%n",
                projected, measured.alpha() * 1e6, 8 / measured.beta() / 1e9);
        System.out.println("| model | gradient MiB | step ms (1 rank) | backward ms | link | p | all-reduce ms | efficiency, no overlap | efficiency, overlap (bound) |");
        System.out.println("|---|---:|---:|---:|---|---:|---:|---:|---:|");
        for (MainJobModels family : MainJobModels.values()) {
            List<Map<String, String>> mine = scaling.stream().filter(r -> r.get("model").equals(family.flag())).toList();
            List<Map<String, String>> local = mine.stream().filter(r -> r.get("mode").equals("solo")).toList();
            if (local.isEmpty()) local = mine.stream().filter(r -> r.get("ranks").equals("1") && r.get("mode").equals("local")).toList();
            if (local.isEmpty()) continue;
            double step = local.stream().mapToDouble(r -> Double.parseDouble(r.get("step_ms"))).average().orElseThrow() / 1e3;
            double backward = local.stream().mapToDouble(r -> Double.parseDouble(r.get("backward_ms"))).average().orElseThrow() / 1e3;
            double bytes = 4.0 * family.create(0).parameterCount();
            List<String> linkNames = new ArrayList<>(List.of(String.format(Locale.ROOT, "measured (%.1f Gb/s)", 8 / measured.beta() / 1e9)));
            List<RingAllReduceModel> links = new ArrayList<>(List.of(measured));
            for (double g : LINKS_GBIT) {
                linkNames.add(String.format(Locale.ROOT, "%.0f Gb/s", g));
                links.add(measured.onLink(g));
            }
            for (int l = 0; l < links.size(); l++) {
                for (int p : RANKS) {
                    double comm = links.get(l).seconds(p, bytes);
                    System.out.printf(Locale.ROOT, "| %s | %.2f | %.0f | %.0f | %s | %d | %.2f | %.3f | %.3f |%n", family.flag(), bytes / 1048576, step * 1e3,
                            backward * 1e3, linkNames.get(l), p, comm * 1e3, RingAllReduceModel.efficiency(step, backward, comm, false),
                            RingAllReduceModel.efficiency(step, backward, comm, true));
                }
            }
        }
    }

    /** The lines of {@code file} starting with {@code kind}, each as its {@code key=value} pairs. */
    static List<Map<String, String>> rows(Path file, String kind) throws IOException {
        List<Map<String, String>> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (line.startsWith(kind + " ")) out.add(keyValues(line));
        }
        return out;
    }

    /** The {@code key=value} words of {@code line}. */
    static Map<String, String> keyValues(String line) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String word : line.strip().split("\\s+")) {
            int eq = word.indexOf('=');
            if (eq > 0) m.put(word.substring(0, eq), word.substring(eq + 1));
        }
        return m;
    }
}
