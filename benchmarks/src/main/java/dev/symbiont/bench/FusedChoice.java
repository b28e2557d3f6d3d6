package dev.symbiont.bench;

import dev.symbiont.core.Scope;
import dev.symbiont.core.fused.Family;
import dev.symbiont.core.fused.FusedKernels;

/** A benchmark's {@code impl} parameter: the backend's own kernels for a family, or its reference. */
final class FusedChoice {
    private FusedChoice() {}

    /**
     * Until closed: the backend's kernels when {@code impl} is {@code own} ("flash", "fused"),
     * the family's reference when it is "reference".
     */
    static Scope of(String impl, String own, Family<?> family) {
        if (impl.equals(own)) return () -> { };
        if (impl.equals("reference")) return FusedKernels.forceReference(family);
        throw new IllegalArgumentException("impl must be " + own + " or reference, got " + impl);
    }
}
