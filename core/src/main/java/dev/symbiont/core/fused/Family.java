package dev.symbiont.core.fused;

import dev.symbiont.core.Switch;

import java.util.Locale;
import java.util.Objects;

/**
 * One family of fused ops — norm, activation, attention, scan, moe, linear, optim, conv — named by its contract interface {@code K} and carrying the reference
 * implementation composed from primitives. A backend hands out its own {@code K} through
 * {@link dev.symbiont.core.backend.Backend#fused}; {@link FusedKernels#of} picks between the two.
 *
 * <p>A family is a singleton constant of its contract (e.g. {@code NormKernels.FAMILY}); it
 * compares by identity. Its name is lower-case, used in {@code -Dsymbiont.fused.<name>=reference}.
 *
 * <p><b>One op at a time.</b> Each reference is an open, stateless class with a public no-arg
 * constructor, so a backend that makes one op faster overrides that op alone and inherits the
 * reference for the rest of the family:
 *
 * <pre>{@code
 * final class MyNorm extends ReferenceNorm {
 *     @Override public Tensor softmax(Tensor x, int dim) { ... }   // the kernel; every other op: the reference
 * }
 * // in the backend:  fused(family) returns new MyNorm() for NormKernels.FAMILY
 * }</pre>
 *
 * A reference op composed from others of its family (add + layer norm from layer norm, linear_gelu
 * from linear) calls them virtually, so an override of the part serves the composite too; an
 * override must therefore not call back into a composite of itself. An override that takes only
 * some inputs returns {@code super.op(...)} for the rest.
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
