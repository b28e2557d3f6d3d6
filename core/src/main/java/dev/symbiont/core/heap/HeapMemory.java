package dev.symbiont.core.heap;

/**
 * Marks a backend whose storages are {@link HeapStorage}s — Java arrays on the heap — as the
 * reference and CPU backends' are. Conformance groups that inspect heap buffers (release
 * poisoning, the buffer pool) run only for backends that carry it; a device backend does not.
 */
public interface HeapMemory {}
