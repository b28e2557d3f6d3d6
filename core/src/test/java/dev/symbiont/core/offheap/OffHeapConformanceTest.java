package dev.symbiont.core.offheap;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.BackendConformanceTest;

/**
 * The whole conformance kit, every fused family included, on a backend whose storages are
 * native memory: whatever in core or in the kit assumed heap storages fails here.
 */
class OffHeapConformanceTest extends BackendConformanceTest {
    @Override
    protected Backend backend() { return new OffHeapBackend(); }
}
