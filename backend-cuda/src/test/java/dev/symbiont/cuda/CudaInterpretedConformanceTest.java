package dev.symbiont.cuda;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.BackendConformanceTest;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole conformance kit on the {@code cuda} backend over the PTX interpreter: every primitive
 * group, the norm, activation, optim, attention, scan, moe, conv and linear families on the backend's own
 * kernels, and every other fused family through its reference composed of the backend's
 * primitives, so every kernel the backend ships is executed and compared with the reference on
 * every build.
 */
class CudaInterpretedConformanceTest extends BackendConformanceTest {
    private static long startNanos, startInstructions;

    @Override
    protected Backend backend() { return new CudaBackend(new InterpretedDriver(), 0); }

    @BeforeAll
    static void start() {
        startNanos = System.nanoTime();
        startInstructions = InterpretedDriver.allInstructions();
    }

    /** The interpreter's speed on the kit, for docs/cuda.md (a report, not an assertion). */
    @AfterAll
    static void report() {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        long n = InterpretedDriver.allInstructions() - startInstructions;
        System.out.printf(java.util.Locale.ROOT, "conformance kit on the PTX interpreter: %,d PTX instructions in %.1f s (%.1f M/s over the whole kit)%n",
                n, seconds, n / seconds / 1e6);
    }
}
