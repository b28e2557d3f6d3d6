package dev.symbiont.nn;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The scalars every {@link ReportsMetrics} module of a model reported about its last forward.
 *
 * @param values   each module's metrics under its dotted module name
 *                 ({@code blocks.0.block_sparse_moe.expert_load_3}), in module order
 * @param headline the short form: each headline name once, the largest value over the modules
 *                 that report it (the worst layer, as one number fits a progress line)
 */
public record ForwardMetrics(Map<String, Double> values, Map<String, Double> headline) {
    public ForwardMetrics {
        values = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(values));
        headline = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(headline));
    }

    /** The metrics of {@code model}'s modules; both maps are empty when none reports any. */
    public static ForwardMetrics of(Module model) {
        Map<String, Double> values = new LinkedHashMap<>(), headline = new LinkedHashMap<>();
        model.namedModules().forEach((name, module) -> {
            // A wrapper (Checkpointed) shares its name with the module it wraps, which may be the one reporting.
            for (Module m = module; m != null; m = m.children().get("")) {
                if (!(m instanceof ReportsMetrics r)) continue;
                Map<String, Double> own = r.lastMetrics();
                own.forEach((key, v) -> values.put(name.isEmpty() ? key : name + "." + key, v));
                for (String key : r.headline()) {
                    Double v = own.get(key);
                    if (v != null) headline.merge(key, v, Math::max);
                }
            }
        });
        return new ForwardMetrics(values, headline);
    }

    public boolean isEmpty() { return values.isEmpty(); }
}
