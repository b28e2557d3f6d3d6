package dev.symbiont.nn;

import dev.symbiont.core.Tensor;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The scalars every {@link ReportsMetrics} module of a model reported about its last forward,
 * gathered on the backend into one float32 vector, so that nothing is read back until
 * {@link #values()} or {@link #headline()} asks (a trainer sums the vectors over its logging
 * window and reads the sum when it logs).
 *
 * <ul>
 *   <li>values: each module's metrics under its dotted module name
 *       ({@code blocks.0.block_sparse_moe.expert_load_3}), in module order;</li>
 *   <li>headline: the short form, each headline name once with the largest value over the
 *       modules that report it (the worst layer, as one number fits a progress line).</li>
 * </ul>
 */
public final class ForwardMetrics {
    private final List<String> names, headlineNames;
    private final Tensor onBackend;

    private ForwardMetrics(List<String> names, List<String> headlineNames, Tensor onBackend) {
        this.names = List.copyOf(names);
        this.headlineNames = List.copyOf(headlineNames);
        this.onBackend = onBackend;
    }

    /** The metrics of {@code model}'s modules, gathered on their backend; empty when none reports any. */
    public static ForwardMetrics of(Module model) {
        List<String> names = new ArrayList<>();
        List<Tensor> parts = new ArrayList<>();
        Map<String, Tensor> headline = new LinkedHashMap<>();
        model.namedModules().forEach((name, module) -> {
            // A wrapper (Checkpointed) shares its name with the module it wraps, which may be the one reporting.
            for (Module m = module; m != null; m = m.children().get("")) {
                if (!(m instanceof ReportsMetrics r)) continue;
                Tensor values = r.lastMetricValues();
                if (values == null) continue;
                List<String> own = r.metricNames();
                for (String key : own) names.add(name.isEmpty() ? key : name + "." + key);
                parts.add(values);
                for (String key : r.headline()) {
                    int i = own.indexOf(key);
                    if (i >= 0) headline.merge(key, values.narrow(0, i, 1), Tensor::maximum);
                }
            }
        });
        if (parts.isEmpty()) return new ForwardMetrics(List.of(), List.of(), null);
        parts.addAll(headline.values());
        return new ForwardMetrics(names, List.copyOf(headline.keySet()), Tensor.cat(parts, 0));
    }

    public boolean isEmpty() { return names.isEmpty(); }

    /** The dotted names of {@link #values()}, in order. */
    public List<String> names() { return names; }

    /** The names of {@link #headline()}, in order. */
    public List<String> headlineNames() { return headlineNames; }

    /**
     * The values, then the headline values: ({@code names().size() + headlineNames().size()})
     * float32 on the backend, without autograd history; null when empty.
     */
    public Tensor onBackend() { return onBackend; }

    /** Each module's metrics under its dotted name, read to the host (a download). */
    public Map<String, Double> values() { return read().values(); }

    /** The headline metrics, the largest over the modules reporting each, read to the host (a download). */
    public Map<String, Double> headline() { return read().headline(); }

    /** Both maps from one download. */
    public Read read() { return isEmpty() ? new Read(Map.of(), Map.of()) : split(names, headlineNames, onBackend.toFloatArray(), 1); }

    /**
     * Host values laid out as {@link #onBackend()} lays them out for these names, each divided by
     * {@code count} (a window's sum over {@code count} forwards gives their mean).
     */
    public static Read split(List<String> names, List<String> headlineNames, float[] host, int count) {
        Map<String, Double> values = new LinkedHashMap<>(), headline = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) values.put(names.get(i), (double) host[i] / count);
        for (int i = 0; i < headlineNames.size(); i++) headline.put(headlineNames.get(i), (double) host[names.size() + i] / count);
        return new Read(values, headline);
    }

    /** The metrics on the host: values under their dotted names and the headline, each in order. */
    public record Read(Map<String, Double> values, Map<String, Double> headline) {
        public Read {
            values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
            headline = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headline));
        }
    }
}
