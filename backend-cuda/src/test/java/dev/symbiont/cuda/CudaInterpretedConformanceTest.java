package dev.symbiont.cuda;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.MatmulConformance;
import dev.symbiont.core.conformance.RandomConformance;
import dev.symbiont.core.conformance.ReleaseConformance;
import dev.symbiont.core.conformance.TransferConformance;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Nested;

/**
 * The conformance kit's groups on the {@code cuda} backend over the PTX interpreter, so every
 * kernel they reach is executed and compared with the reference on every build. The groups
 * that also need indexing (reductions, whose topk gradient scatters; elementwise and views;
 * device copies and losses) join when those ops land; this class then extends
 * {@link dev.symbiont.core.conformance.BackendConformanceTest}.
 */
class CudaInterpretedConformanceTest {
    private static Backend backend() { return new CudaBackend(new InterpretedDriver(), 0); }

    @Nested
    class Matmul extends MatmulConformance {
        @Override protected Backend backend() { return CudaInterpretedConformanceTest.backend(); }
    }

    @Nested
    class Transfers extends TransferConformance {
        @Override protected Backend backend() { return CudaInterpretedConformanceTest.backend(); }
    }

    @Nested
    class Release extends ReleaseConformance {
        @Override protected Backend backend() { return CudaInterpretedConformanceTest.backend(); }
    }

    @Nested
    class Random extends RandomConformance {
        @Override protected Backend backend() { return CudaInterpretedConformanceTest.backend(); }
    }
}
