package dev.symbiont.core.reference;

import dev.symbiont.core.backend.Availability;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.BackendProvider;

/** Finds the {@link ReferenceBackend}: always available, lowest priority, so any real backend wins. */
public final class ReferenceBackendProvider implements BackendProvider {
    @Override public String name() { return "reference"; }

    @Override public int priority() { return 0; }

    @Override public Availability availability() { return Availability.yes(); }

    @Override public Backend create() { return new ReferenceBackend(); }
}
