package dev.symbiont.cuda.driver;

/**
 * A failed driver call: the call, the driver's error name (e.g. {@code CUDA_ERROR_OUT_OF_MEMORY})
 * and what was asked.
 */
public class CudaException extends RuntimeException {
    private final String error;

    public CudaException(String call, String error, String detail) {
        super(call + ": " + error + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
        this.error = error;
    }

    /** The driver's error name. */
    public String error() { return error; }

    /** Whether the device ran out of memory, which the caching allocator answers by emptying its cache once. */
    public boolean outOfMemory() { return "CUDA_ERROR_OUT_OF_MEMORY".equals(error); }
}
