package dev.symbiont.cpu.kernels;

/**
 * Where a kernel takes the arrays it needs for one call only (packed operands, transposed
 * blocks, partial sums): the backend's buffer pool, given back when the call returns, so that a
 * training step reuses last step's warm arrays instead of zero-filling new ones — or fresh
 * arrays, for callers without a pool. Implementations are safe to call from the kernel's tasks.
 */
public interface FloatScratch {
    /** n floats of unspecified contents: for an array the kernel writes in full before it reads it. */
    float[] empty(int n);

    /** n zeros: for an array the kernel accumulates into. */
    float[] zeros(int n);

    /** A new array on every call. */
    FloatScratch FRESH = new FloatScratch() {
        @Override
        public float[] empty(int n) { return new float[n]; }

        @Override
        public float[] zeros(int n) { return new float[n]; }
    };
}
