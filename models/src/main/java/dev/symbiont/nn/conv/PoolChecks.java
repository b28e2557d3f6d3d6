package dev.symbiont.nn.conv;

/** The construction checks the pooling layers share, each message naming the layer. */
final class PoolChecks {
    private PoolChecks() {}

    /** kernel ≥ 1, stride ≥ 1, 0 ≤ padding ≤ kernel / 2 (PyTorch's rule), dilation ≥ 1. */
    static void window(String layer, int kernel, int stride, int padding, int dilation) {
        if (kernel < 1) throw new IllegalArgumentException(layer + ": kernel size must be at least 1, got " + kernel);
        if (stride < 1) throw new IllegalArgumentException(layer + ": stride must be at least 1, got " + stride);
        if (dilation < 1) throw new IllegalArgumentException(layer + ": dilation must be at least 1, got " + dilation);
        if (padding < 0 || padding > kernel / 2) {
            throw new IllegalArgumentException(layer + ": padding must be in [0, kernel / 2] = [0, " + kernel / 2 + "], got " + padding);
        }
    }
}
