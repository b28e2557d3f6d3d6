package dev.symbiont.data;

/**
 * Preparing a batch failed (in {@link Dataset#get} or the collate function). Thrown in the
 * caller's thread by {@link Batches#next()}, wherever the batch was prepared; the original
 * exception is the cause.
 */
public final class DataLoaderException extends RuntimeException {
    private final int epoch;
    private final int batchIndex;

    public DataLoaderException(String loader, int epoch, int batchIndex, Throwable cause) {
        super("data loader '" + loader + "': preparing batch " + batchIndex + " of epoch " + epoch
                + " failed: " + cause, cause);
        this.epoch = epoch;
        this.batchIndex = batchIndex;
    }

    /** The epoch being iterated. */
    public int epoch() { return epoch; }

    /** The index within the epoch of the batch that failed. */
    public int batchIndex() { return batchIndex; }
}
