package dev.symbiont.core.distributed;

/**
 * A collective that has been started and may still be running, as PyTorch's
 * {@code torch.distributed.Work}: the tensors it was given must not be read or written until
 * {@link #await()} returns. Collectives complete in the order they were started.
 */
public interface Work {
    /**
     * Blocks until the collective has finished and its results are in the tensors it was given.
     * A collective that failed, or did not finish within the communicator's timeout, throws a
     * {@link CollectiveException} naming the collective and the ranks involved. Calling it again
     * returns at once (or throws the same failure).
     */
    void await();

    /** Whether the collective has finished, without blocking (a failed one counts as finished). */
    boolean isCompleted();

    /** A collective that was complete when it was started (a single rank has nothing to exchange). */
    Work DONE = new Work() {
        @Override public void await() {}
        @Override public boolean isCompleted() { return true; }
    };
}
