package dev.symbiont.core.distributed;

/**
 * A collective that failed or did not complete: ranks that disagree on what they exchange
 * (shapes, parameters, which gradients were produced), a rank that stopped calling collectives
 * (the timeout), or the communication library's own error. The message names the collective,
 * this rank and, where known, the other ranks involved.
 */
public class CollectiveException extends RuntimeException {
    public CollectiveException(String message) { super(message); }

    public CollectiveException(String message, Throwable cause) { super(message, cause); }
}
