package dev.symbiont.cpu.kernels;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;

import static dev.symbiont.cpu.kernels.VectorConstants.L;
import static dev.symbiont.cpu.kernels.VectorConstants.S;

/** {@link ScanMath} on the Vector API: exp over the states a vector at a time, the tail masked. */
final class VectorScanMath implements ScanMath {
    static final VectorScanMath INSTANCE = new VectorScanMath();

    private VectorScanMath() {}

    @Override
    public void decay(float dt, float[] a, float[] out, int n) {
        FloatVector step = FloatVector.broadcast(S, dt);
        int s = 0;
        for (int bound = S.loopBound(n); s < bound; s += L) {
            VectorMath.exp(FloatVector.fromArray(S, a, s).mul(step)).intoArray(out, s);
        }
        if (s < n) {
            VectorMask<Float> mask = S.indexInRange(s, n);
            VectorMath.exp(FloatVector.fromArray(S, a, s, mask).mul(step)).intoArray(out, s, mask);
        }
    }

    @Override
    public String toString() { return "vector"; }
}
