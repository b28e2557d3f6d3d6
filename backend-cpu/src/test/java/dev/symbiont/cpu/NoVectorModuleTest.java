package dev.symbiont.cpu;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cpu.gemm.Gemm;
import dev.symbiont.cpu.gemm.GemmPath;
import dev.symbiont.cpu.kernels.KernelSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs in a JVM started WITHOUT {@code --add-modules jdk.incubator.vector} (the surefire
 * execution "no-vector-module" in this module's pom): the backend must fall back to EJML and
 * the scalar kernels, say why, and still compute the reference's answers.
 */
@Tag("no-vector-module")
class NoVectorModuleTest {

    @Test
    void theJvmUnderTestReallyLacksTheModule() {
        assertTrue(ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty(),
                "this test must run in the no-vector-module execution");
    }

    @Test
    void selectionFallsBackToEjmlAndSaysWhy() {
        assertEquals(GemmPath.EJML, Gemm.fastest().path());
        KernelSupport.Status status = KernelSupport.status();
        assertFalse(status.available());
        assertTrue(status.reason().contains("--add-modules jdk.incubator.vector"), status.reason());
        var e = assertThrows(IllegalStateException.class, () -> new CpuBackend(GemmPath.VECTOR));
        assertTrue(e.getMessage().contains("jdk.incubator.vector"), e.getMessage());
    }

    @Test
    void theFallbackBackendComputesTheReferenceAnswers() {
        CpuBackend cpu = new CpuBackend();
        ReferenceBackend reference = new ReferenceBackend();
        float[] fromCpu = forwardAndGrad(cpu);
        float[] fromReference = forwardAndGrad(reference);
        assertArrayEquals(fromReference, fromCpu, 1e-4f);
    }

    /** A small network's output followed by its input gradient, on one backend. */
    private static float[] forwardAndGrad(dev.symbiont.core.backend.Backend backend) {
        try (var scope = Backends.use(backend)) {
            Generator rng = new Generator(7);
            Tensor x = Tensor.randn(rng, 33, 65).requiresGrad(true);
            Tensor w = Tensor.randn(rng, 65, 17);
            Tensor y = x.matmul(w).softmax(-1).layerNorm(new int[] {17}, null, null, 1e-5).tanh();
            y.sum().backward();
            float[] out = y.toFloatArray(), grad = x.grad().toFloatArray();
            float[] both = java.util.Arrays.copyOf(out, out.length + grad.length);
            System.arraycopy(grad, 0, both, out.length, grad.length);
            return both;
        }
    }
}
