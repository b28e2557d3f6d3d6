package dev.symbiont.core.conformance;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.reference.ReferenceBackend;

/**
 * Runs the conformance kit on a second reference backend instance: it exercises the kit in
 * core and checks that the reference is deterministic and keeps its results on the backend
 * that computed them.
 */
class ReferenceConformanceTest extends BackendConformanceTest {
    @Override
    protected Backend backend() { return new ReferenceBackend(); }
}
