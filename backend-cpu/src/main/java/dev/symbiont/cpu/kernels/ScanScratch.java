package dev.symbiont.cpu.kernels;

/**
 * One selective-scan task's scratch for the channel it is on, every state row {@code width}
 * floats (N rounded up to whole vectors, the padding zero): the channel's row of A, the states
 * of one checkpoint chunk — row 0 the state before the chunk, row j + 1 the state after its
 * step j (the forward keeps its running state in row 0) — the chunk's ΔA and outputs y, the
 * adjoint carry, the channel's dA, and the two sums {@link ScanMath#adjoint} leaves behind.
 * The chunk's dt fill whole vectors ({@code chunk} is a multiple of the vector length).
 */
final class ScanScratch {
    final int width;
    final float[] a, hs, decays, ys, dts, dh, dA;
    /** After {@link ScanMath#adjoint}: Σ_n dL/d(dt·A_n)·A_n and Σ_n gh_n·B_n. */
    float sumDecayA, sumAdjointB;

    ScanScratch(int width, int chunk) {
        this.width = width;
        a = new float[width];
        hs = new float[(chunk + 1) * width];
        decays = new float[chunk * width];
        ys = new float[chunk];
        dts = new float[chunk];
        dh = new float[width];
        dA = new float[width];
    }
}
