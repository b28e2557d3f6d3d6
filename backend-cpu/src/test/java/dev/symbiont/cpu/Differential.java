package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Layout;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Storage;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.reference.ReferenceBackend;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.fail;

/** Shared fixtures of the differential tests: the two backends, random data, and a tolerant comparison. */
final class Differential {
    private Differential() {}

    /** The awkward sizes every kernel is run on; the last is above the parallel threshold. */
    static final int[] SIZES = {1, 7, 13, 31, 207, 4098, 70_001};

    static final ReferenceBackend REF = new ReferenceBackend();
    static final CpuBackend CPU = new CpuBackend();

    /** The norm kernels b runs: its own, or the reference for the reference backend. */
    static NormKernels norm(Backend b) { return FusedKernels.of(NormKernels.FAMILY, b); }

    /** The activation-gradient kernels b runs. */
    static ActivationKernels activation(Backend b) { return FusedKernels.of(ActivationKernels.FAMILY, b); }

    /** The attention kernels b runs. */
    static AttentionKernels attention(Backend b) { return FusedKernels.of(AttentionKernels.FAMILY, b); }

    static float[] random(long seed, int n, float scale) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] a = new float[n];
        for (int i = 0; i < a.length; i++) a[i] = (float) ((r.nextDouble() * 2 - 1) * scale);
        return a;
    }

    static float[] positive(long seed, int n) {
        float[] a = random(seed, n, 4f);
        for (int i = 0; i < a.length; i++) a[i] = Math.abs(a[i]) + 1e-3f;
        return a;
    }

    static Storage upload(Backend b, float[] data) {
        return b.upload(DType.FLOAT32, data);
    }

    static Tensor tensor(Backend b, float[] data, Layout layout) {
        return new Tensor(upload(b, data), layout);
    }

    static float[] read(Backend b, Storage s, int... shape) {
        return (float[]) b.download(s, Layout.contiguous(shape));
    }

    static float[] read(Tensor t) {
        return (float[]) t.backend().download(t.storage(), t.layout());
    }

    /**
     * |expected − actual| ≤ atol + rtol·|expected| elementwise; NaN must meet NaN, infinities
     * must match exactly.
     */
    static void assertClose(String what, float[] expected, float[] actual, double rtol, double atol) {
        if (expected.length != actual.length) fail(what + ": length " + actual.length + ", expected " + expected.length);
        for (int i = 0; i < expected.length; i++) {
            float e = expected[i], a = actual[i];
            boolean ok = Float.isNaN(e) ? Float.isNaN(a)
                    : Float.isInfinite(e) ? e == a
                    : Math.abs(e - a) <= atol + rtol * Math.abs(e);
            if (!ok) fail(what + ": element " + i + " is " + a + ", expected " + e);
        }
    }
}
