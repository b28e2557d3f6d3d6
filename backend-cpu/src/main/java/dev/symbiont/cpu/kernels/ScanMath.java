package dev.symbiont.cpu.kernels;

/**
 * The one transcendental in the selective scan's inner loop, ΔA = exp(dt·A) for the N states
 * of a channel at one step, on the Vector API ({@link VectorScanMath}, {@link VectorMath#exp})
 * or in plain Java ({@link ScalarScanMath}, {@code Math.exp}), the twin for JVMs without the
 * incubator module or with {@code -Dsymbiont.cpu.vector=false}. This interface touches no
 * Vector-API type, so the scan kernels load either way.
 */
public interface ScanMath {

    /** The Vector-API twin when {@code vector}, else the scalar one. */
    static ScanMath of(boolean vector) {
        return vector ? VectorScanMath.INSTANCE : ScalarScanMath.INSTANCE;
    }

    /** out[s] = exp(dt · a[s]) for s in [0, n). */
    void decay(float dt, float[] a, float[] out, int n);
}
