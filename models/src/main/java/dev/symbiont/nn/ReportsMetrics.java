package dev.symbiont.nn;

import dev.symbiont.core.Tensor;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A module that reports named scalars about its last forward (an MoE layer's expert load,
 * dropped slots and auxiliary losses), which a trainer logs without knowing the module's kind
 * ({@link ForwardMetrics#of}). The values stay on the module's backend: a trainer sums them over
 * its logging window there and reads them back only when it logs a line.
 */
public interface ReportsMetrics {
    /** The names of {@link #lastMetricValues()}'s entries, relative to this module, in their order; fixed for the module. */
    List<String> metricNames();

    /**
     * The last forward's scalars, (n) float32 on the module's backend in {@link #metricNames()}'s
     * order and without autograd history; null before the first forward. Nothing is read back.
     */
    Tensor lastMetricValues();

    /**
     * The last forward's scalars by name, in {@link #metricNames()}'s order; empty before the first
     * forward. A host read (one download), for inspection: a trainer reads {@link #lastMetricValues()} when it logs.
     */
    default Map<String, Double> lastMetrics() {
        Map<String, Double> m = new LinkedHashMap<>();
        Tensor values = lastMetricValues();
        if (values == null) return m;
        float[] v = values.toFloatArray();
        List<String> names = metricNames();
        for (int i = 0; i < v.length; i++) m.put(names.get(i), (double) v[i]);
        return m;
    }

    /**
     * The names among {@link #metricNames()} worth a place in a progress line (an MoE layer's
     * busiest-expert share); none by default.
     */
    default List<String> headline() { return List.of(); }
}
