package dev.symbiont.core.fused;

import java.util.Objects;

/**
 * One family of fused ops — norm, activation, attention, and the scan, moe and conv families as
 * they land — named by its contract interface {@code K} and carrying the reference
 * implementation composed from primitives. A backend hands out its own {@code K} through
 * {@link dev.symbiont.core.backend.Backend#fused}; {@link FusedKernels#of} picks between the two.
 *
 * @param name      lower-case, used in {@code -Dsymbiont.fused.<name>=reference}
 * @param contract  the family's kernel interface
 * @param reference the family's reference implementation, correct on every backend
 */
public record Family<K>(String name, Class<K> contract, K reference) {
    public Family {
        Objects.requireNonNull(name, "name");
        if (!contract.isInstance(reference)) {
            throw new IllegalArgumentException("family " + name + ": reference " + reference + " does not implement " + contract.getName());
        }
    }

    /** The system property that forces this family to its reference: {@code symbiont.fused.<name>}. */
    public String property() { return "symbiont.fused." + name; }

    /** The environment variable with the same effect: {@code SYMBIONT_FUSED_<NAME>}. */
    public String environment() { return "SYMBIONT_FUSED_" + name.toUpperCase(java.util.Locale.ROOT); }

    @Override
    public String toString() { return name; }
}
