package dev.symbiont.core.conformance;

import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.fused.activation.ActivationConformance;
import dev.symbiont.core.fused.attention.AttentionConformance;
import dev.symbiont.core.fused.conv.ConvConformance;
import dev.symbiont.core.fused.linear.LinearConformance;
import dev.symbiont.core.fused.moe.MoeConformance;
import dev.symbiont.core.fused.norm.ChannelNormConformance;
import dev.symbiont.core.fused.norm.NormConformance;
import dev.symbiont.core.fused.optim.OptimConformance;
import dev.symbiont.core.fused.scan.ScanConformance;
import org.junit.jupiter.api.Nested;

/**
 * The whole conformance kit for one backend. A backend's tests extend this once and say which
 * backend to test:
 *
 * <pre>{@code
 * class CpuConformanceTest extends BackendConformanceTest {
 *     @Override protected Backend backend() { return new CpuBackend(); }
 * }
 * }</pre>
 *
 * Each primitive group and each fused family ({@code dev.symbiont.core.fused.*}) runs as a
 * nested group comparing the backend with a fresh
 * {@link dev.symbiont.core.reference.ReferenceBackend}, forward and backward. The group
 * classes can also be extended one by one.
 */
public abstract class BackendConformanceTest {

    /** The backend under test; called once per test. */
    protected abstract Backend backend();

    @Nested
    class Elementwise extends ElementwiseConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class Reductions extends ReductionConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class Matmul extends MatmulConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class Losses extends LossConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class NormFamily extends NormConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class ChannelNorms extends ChannelNormConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class ActivationFamily extends ActivationConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class AttentionFamily extends AttentionConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class ScanFamily extends ScanConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class MoeFamily extends MoeConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class LinearFamily extends LinearConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class OptimFamily extends OptimConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class ConvFamily extends ConvConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class Indexing extends IndexingConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class Views extends ViewConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class Transfers extends TransferConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class Release extends ReleaseConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class Random extends RandomConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }

    @Nested
    class DeviceCopies extends DeviceCopyConformance {
        @Override protected Backend backend() { return BackendConformanceTest.this.backend(); }
    }
}
