package dev.symbiont.core.fused;

import dev.symbiont.core.Scope;
import dev.symbiont.core.backend.Backend;

import java.util.HashSet;
import java.util.Set;

/**
 * Picks the kernels a fused op runs on: the backend's own for the family, unless the family
 * is forced to its reference — by {@code -Dsymbiont.fused.<family>=reference}, by the
 * environment variable {@code SYMBIONT_FUSED_<FAMILY>=reference}, or for a block of code on
 * this thread by {@link #forceReference} — or the backend has none, in which case the
 * family's reference runs (a backend that implements only the primitive tier is complete).
 */
public final class FusedKernels {
    /** The value that forces a family to its reference; {@code backend} (or unset) leaves the choice to the backend. */
    public static final String REFERENCE = "reference";
    public static final String BACKEND = "backend";

    private static final ThreadLocal<Set<Family<?>>> FORCED = ThreadLocal.withInitial(HashSet::new);

    private FusedKernels() {}

    /** The kernels {@code backend} runs {@code family}'s ops on now. */
    public static <K> K of(Family<K> family, Backend backend) {
        if (forcedToReference(family)) return family.reference();
        K own = backend.fused(family);
        return own != null ? own : family.reference();
    }

    /** Whether the switch (scope, property or environment) sends {@code family} to its reference. */
    public static boolean forcedToReference(Family<?> family) {
        Set<Family<?>> forced = FORCED.get();
        return (!forced.isEmpty() && forced.contains(family)) || family.forcedByProperty();
    }

    /**
     * Runs the given families on their reference kernels on this thread until the scope closes,
     * whatever the backend: what tests and benchmarks use to compare a fast kernel with its twin.
     * The kernels are chosen when an op runs forward, so its backward uses the same ones.
     */
    public static Scope forceReference(Family<?>... families) {
        Set<Family<?>> forced = FORCED.get();
        Set<Family<?>> added = new HashSet<>();
        for (Family<?> f : families) if (forced.add(f)) added.add(f);
        return () -> forced.removeAll(added);
    }
}
