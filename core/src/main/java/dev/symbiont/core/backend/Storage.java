package dev.symbiont.core.backend;

import dev.symbiont.core.DType;

/**
 * A backend's buffer of elements. Core never looks inside: it passes storages back to the
 * backend that made them, together with a {@link dev.symbiont.core.Layout}.
 */
public interface Storage {
    Backend backend();

    DType dtype();

    /** Number of elements the buffer holds (long: a device buffer may pass 2^31 − 1). */
    long size();

    default long bytes() { return size() * dtype().byteSize(); }

    /**
     * When this buffer was made, from {@link AllocationOrder#next()}; -1 for a backend that does
     * not count, which autograd treats as older than any backward pass (its gradients are copied).
     */
    default long serial() { return -1; }

    /**
     * Returns the memory to the backend now instead of when the garbage collector finds the
     * buffer unreachable. Idempotent; the storage must not be used afterwards.
     */
    void release();
}
