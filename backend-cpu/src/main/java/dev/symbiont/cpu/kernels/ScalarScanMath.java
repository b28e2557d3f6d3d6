package dev.symbiont.cpu.kernels;

/** {@link ScanMath} in plain Java. */
final class ScalarScanMath implements ScanMath {
    static final ScalarScanMath INSTANCE = new ScalarScanMath();

    private ScalarScanMath() {}

    @Override
    public void decay(float dt, float[] a, float[] out, int n) {
        for (int s = 0; s < n; s++) out[s] = (float) Math.exp(dt * a[s]);
    }

    @Override
    public String toString() { return "scalar"; }
}
