package dev.symbiont.core;

import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.reference.ReferenceBackend;

/** Small tensors on the reference backend for the edge-case tests, whatever backend is the default. */
final class ReferenceTensors {
    static final ReferenceBackend REF = new ReferenceBackend();

    private ReferenceTensors() {}

    static Tensor t(float[] v, int... shape) {
        try (var s = Backends.use(REF)) { return Tensor.fromArray(v, shape); }
    }

    /** 1, 2, ..., n. */
    static float[] seq(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) v[i] = i + 1;
        return v;
    }
}
