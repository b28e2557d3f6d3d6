package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * In the JVM without {@code jdk.incubator.vector} (the "no-vector-module" surefire execution):
 * FlashAttention runs on its scalar tile math, never touching a Vector-API class, and gives the
 * reference's output and gradients.
 */
@Tag("no-vector-module")
class NoVectorModuleAttentionTest {

    @Test
    void flashAttentionRunsOnTheScalarTwinAndMatchesTheReference() {
        assertTrue(ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty(), "must run without the module");
        float[] cpu = forwardAndGrads(new CpuBackend()), reference = forwardAndGrads(new ReferenceBackend());
        assertArrayEquals(reference, cpu, 1e-4f);
    }

    /** Output and the gradients of q, k and v, one after another. */
    private static float[] forwardAndGrads(Backend backend) {
        try (var scope = Backends.use(backend)) {
            Generator g = new Generator(3);
            Tensor q = Tensor.randn(g, 2, 4, 70, 16).requiresGrad(true);
            Tensor k = Tensor.randn(g, 2, 2, 90, 16).requiresGrad(true);
            Tensor v = Tensor.randn(g, 2, 2, 90, 16).requiresGrad(true);
            Tensor out = Tensor.scaledDotProductAttention(q, k, v, Tensor.randn(g, 2, 1, 1, 90), true);
            out.backward(Tensor.randn(g, out.shape()));
            float[][] parts = {out.toFloatArray(), q.grad().toFloatArray(), k.grad().toFloatArray(), v.grad().toFloatArray()};
            int n = 0;
            for (float[] p : parts) n += p.length;
            float[] all = new float[n];
            int at = 0;
            for (float[] p : parts) { System.arraycopy(p, 0, all, at, p.length); at += p.length; }
            return all;
        }
    }
}
