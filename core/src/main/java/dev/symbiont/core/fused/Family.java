package dev.symbiont.core.fused;

import dev.symbiont.core.Switch;

import java.util.Locale;
import java.util.Objects;

/**
 * One family of fused ops — norm, activation, attention, scan, moe, conv — named by its contract interface {@code K} and carrying the reference
 * implementation composed from primitives. A backend hands out its own {@code K} through
 * {@link dev.symbiont.core.backend.Backend#fused}; {@link FusedKernels#of} picks between the two.
 *
 * <p>A family is a singleton constant of its contract (e.g. {@code NormKernels.FAMILY}); it
 * compares by identity. Its name is lower-case, used in {@code -Dsymbiont.fused.<name>=reference}.
 */
public final class Family<K> {
    private final String name;
    private final Class<K> contract;
    private final K reference;
    private final Switch forceReference;

    public Family(String name, Class<K> contract, K reference) {
        Objects.requireNonNull(name, "name");
        if (!contract.isInstance(reference)) {
            throw new IllegalArgumentException("family " + name + ": reference " + reference + " does not implement " + contract.getName());
        }
        this.name = name;
        this.contract = contract;
        this.reference = reference;
        this.forceReference = new Switch("symbiont.fused." + name, "SYMBIONT_FUSED_" + name.toUpperCase(Locale.ROOT),
                FusedKernels.REFERENCE, "to force the reference kernels", FusedKernels.BACKEND, "for the backend's own");
    }

    public String name() { return name; }

    public Class<K> contract() { return contract; }

    public K reference() { return reference; }

    /** The system property that forces this family to its reference: {@code symbiont.fused.<name>}. */
    public String property() { return forceReference.property(); }

    /** The environment variable with the same effect: {@code SYMBIONT_FUSED_<NAME>}. */
    public String environment() { return forceReference.environment(); }

    /** Whether the property or the environment variable forces this family to its reference. */
    boolean forcedByProperty() { return forceReference.isOn(); }

    @Override
    public String toString() { return name; }
}
