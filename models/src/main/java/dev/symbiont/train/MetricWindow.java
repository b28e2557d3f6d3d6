package dev.symbiont.train;

import dev.symbiont.nn.ForwardMetrics;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The means of the model's {@link ForwardMetrics} over the micro-batches of one logging window,
 * as the loss column is a mean over its steps.
 */
final class MetricWindow {
    private final Map<String, Double> values = new LinkedHashMap<>(), headline = new LinkedHashMap<>();
    private int count;

    void add(ForwardMetrics m) {
        m.values().forEach((k, v) -> values.merge(k, v, Double::sum));
        m.headline().forEach((k, v) -> headline.merge(k, v, Double::sum));
        count++;
    }

    /** Each metric's mean over the window, in first-seen order; empty when nothing reported. */
    Map<String, Double> values() { return means(values); }

    /** Each headline metric's mean over the window. */
    Map<String, Double> headline() { return means(headline); }

    void reset() {
        values.clear();
        headline.clear();
        count = 0;
    }

    private Map<String, Double> means(Map<String, Double> sums) {
        Map<String, Double> out = new LinkedHashMap<>();
        sums.forEach((k, v) -> out.put(k, v / count));
        return out;
    }
}
