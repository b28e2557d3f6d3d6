package dev.symbiont.cpu.kernels;

/**
 * A float32 matrix whose rows are each consecutive in {@code data}: row r starts at
 * {@code offset + r·stride} (stride may be 0 for a row broadcast to every row). The shape the
 * row kernels (softmax, norms) read.
 */
public record Rows(float[] data, int offset, int stride) {

    /** Where row {@code r} starts. */
    public int start(int r) {
        return offset + r * stride;
    }
}
