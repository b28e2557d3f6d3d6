package dev.symbiont.bench.torch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs workloads in turn, round after round, in one process: each round times every workload
 * {@code reps} times and keeps the median, the order reversed every other round. Two workloads
 * that ran in the same round saw the same minute of the machine, so their per-round ratio
 * survives the host's load changing by 2× over a minute, where separate processes do not.
 */
final class Alternation {
    /** Named work; one call is one timed repetition. */
    record Workload(String name, Runnable call) {}

    private final List<Workload> workloads = new ArrayList<>();
    private final Map<String, List<Double>> roundMedians = new LinkedHashMap<>();

    /** Adds a workload, unless the system property {@code only} names another side ("symbiont", "torch"). */
    Alternation add(String name, Runnable call) {
        String only = System.getProperty("only");
        if (only == null || name.startsWith(only + ".")) workloads.add(new Workload(name, call));
        return this;
    }

    /**
     * Warms the workloads up, in turn, until {@code warmupSeconds} have passed (the JIT compiles
     * Symbiont's kernels on one of the two cores for the first ~15 s, which would slow whichever
     * side ran meanwhile), then runs the rounds.
     */
    void run(double warmupSeconds, int rounds, int reps) throws InterruptedException {
        long end = System.nanoTime() + (long) (warmupSeconds * 1e9);
        while (System.nanoTime() < end) for (Workload w : workloads) w.call.run();
        for (int r = 0; r < rounds; r++) {
            List<Workload> order = new ArrayList<>(workloads);
            if (r % 2 == 1) Collections.reverse(order);
            for (Workload w : order) {
                Thread.sleep(30); // lets the other side's worker threads stop spinning and park
                double[] ms = new double[reps];
                for (int i = 0; i < reps; i++) {
                    long t0 = System.nanoTime();
                    w.call.run();
                    ms[i] = (System.nanoTime() - t0) / 1e6;
                }
                roundMedians.computeIfAbsent(w.name, n -> new ArrayList<>()).add(median(ms));
            }
        }
    }

    /** The per-round medians of one workload, in round order. */
    List<Double> rounds(String name) {
        return roundMedians.get(name);
    }

    /** One line per workload: median over rounds, and every round's median. */
    String report(String tag) {
        StringBuilder out = new StringBuilder();
        for (var e : roundMedians.entrySet()) {
            out.append(String.format("%s %s median_ms=%.2f rounds_ms=[", e.getKey(), tag, median(e.getValue())));
            for (int i = 0; i < e.getValue().size(); i++) out.append(i == 0 ? "" : " ").append(String.format("%.1f", e.getValue().get(i)));
            out.append("]\n");
        }
        return out.toString();
    }

    /** The median over rounds of a/b, and in how many rounds a was faster. */
    String ratio(String a, String b, String tag) {
        List<Double> x = rounds(a), y = rounds(b);
        if (x == null || y == null) return "";
        double[] ratios = new double[x.size()];
        int wins = 0;
        for (int r = 0; r < ratios.length; r++) {
            ratios[r] = x.get(r) / y.get(r);
            if (x.get(r) < y.get(r)) wins++;
        }
        return String.format("ratio %s/%s %s median=%.3f faster_in=%d/%d%n", a, b, tag, median(ratios), wins, ratios.length);
    }

    static double median(List<Double> values) {
        return median(values.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }
}
