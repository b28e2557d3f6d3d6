package dev.symbiont.nn;

import java.util.List;
import java.util.Map;

/**
 * A module that reports named scalars about its last forward (an MoE layer's expert load,
 * dropped slots and auxiliary losses), which a trainer logs without knowing the module's kind
 * ({@link ForwardMetrics#of}).
 */
public interface ReportsMetrics {
    /** The last forward's scalars by name, relative to this module and in a fixed order; empty before the first forward. */
    Map<String, Double> lastMetrics();

    /**
     * The names among {@link #lastMetrics()} worth a place in a progress line (an MoE layer's
     * busiest-expert share); none by default.
     */
    default List<String> headline() { return List.of(); }
}
