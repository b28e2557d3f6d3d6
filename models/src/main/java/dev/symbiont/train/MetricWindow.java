package dev.symbiont.train;

import dev.symbiont.core.Tensor;
import dev.symbiont.nn.ForwardMetrics;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The means of the model's {@link ForwardMetrics} over the micro-batches of one logging window,
 * as the loss column is a mean over its steps. The sums stay on the backend until {@link #read}.
 */
final class MetricWindow {
    /** The metric names of one {@link ForwardMetrics} layout; a window normally sees one. */
    private record Layout(List<String> names, List<String> headlineNames) {}

    private final Map<Layout, Tensor> sums = new LinkedHashMap<>();
    private int count;

    /** Adds one micro-batch's metrics (on the backend; nothing is read). */
    void add(ForwardMetrics m) {
        if (m.isEmpty()) return;
        sums.merge(new Layout(m.names(), m.headlineNames()), m.onBackend(), Tensor::add);
        count++;
    }

    /**
     * Each metric's and each headline metric's mean over the window, in first-seen order (empty
     * when nothing reported): one download per layout, so call it when a line is logged.
     */
    ForwardMetrics.Read read() {
        Map<String, Double> values = new LinkedHashMap<>(), headline = new LinkedHashMap<>();
        sums.forEach((layout, sum) -> {
            ForwardMetrics.Read r = ForwardMetrics.split(layout.names(), layout.headlineNames(), sum.toFloatArray(), count);
            r.values().forEach((k, v) -> values.merge(k, v, Double::sum));
            r.headline().forEach((k, v) -> headline.merge(k, v, Double::sum));
        });
        return new ForwardMetrics.Read(values, headline);
    }

    void reset() {
        sums.clear();
        count = 0;
    }
}
