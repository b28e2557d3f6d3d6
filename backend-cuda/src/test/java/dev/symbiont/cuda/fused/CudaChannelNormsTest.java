package dev.symbiont.cuda.fused;

import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.conformance.ConformanceBase;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.norm.ChannelNormConformance;
import dev.symbiont.core.fused.norm.ChannelNorms;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The channel norms' kernels ({@code channel_norm.cu}) on the PTX interpreter against the
 * reference backend: the conformance kit, and batch norm (training and eval), group norm and
 * layer norm over C at sizes where a statistic's values outnumber a block's 256 threads, each
 * checked to have run its kernels rather than the reference fallback.
 */
class CudaChannelNormsTest extends ConformanceBase {
    private static final List<String> OPS = List.of("batch_norm", "batch_norm backward", "group_norm", "group_norm backward",
            "layer_norm2d", "layer_norm2d backward");

    private final CudaBackend cuda = new CudaBackend(new InterpretedDriver(), 0);

    @Override
    protected Backend backend() { return cuda; }

    @Test
    void everyChannelNormRunsItsKernelsAcrossBlockSizes() {
        long before = fallbacks();
        // batch norm: 3·97 = 291 values per channel; group norm: 3 channels · 97 per (image, group)
        assertMatchesReference("batch_norm", in -> ChannelNorms.batchNorm(in.randn(3, 4, 97).add(2.0), null, null,
                in.randn(4), in.randn(4), true, 0.1, 1e-5), ACCUMULATING);
        assertMatchesReference("batch_norm eval", in -> ChannelNorms.batchNorm(in.randn(2, 4, 5, 3), in.constant(4),
                in.positive(4).detach(), in.randn(4), null, false, 0.1, 1e-5), ACCUMULATING);
        assertMatchesReference("group_norm", in -> ChannelNorms.groupNorm(in.randn(2, 6, 97), 2, in.randn(6), in.randn(6), 1e-5),
                ACCUMULATING);
        assertMatchesReference("layer_norm2d", in -> ChannelNorms.layerNormOverChannels(in.randn(2, 37, 3, 5), in.randn(37),
                in.randn(37), 1e-6), ACCUMULATING);
        assertEquals(before, fallbacks(), "the channel norm kernels took every call");
    }

    @Test
    void batchNormWithoutParametersAndGroupNormWithOneGroupRunTheirKernels() {
        long before = fallbacks();
        assertMatchesReference("batch_norm no affine", in -> ChannelNorms.batchNorm(in.randn(5, 3, 2, 2), null, null,
                null, null, true, 0.1, 1e-5).square(), ACCUMULATING);
        assertMatchesReference("group_norm one group", in -> ChannelNorms.groupNorm(in.randn(3, 4, 2, 3), 1, null, in.randn(4), 1e-5)
                .square(), ACCUMULATING);
        assertEquals(before, fallbacks(), "the channel norm kernels took every call");
    }

    private static long fallbacks() {
        long n = 0;
        for (String op : OPS) n += Fallbacks.count(op);
        return n;
    }

    /** The channel norms' conformance kit on this backend. */
    @Nested
    class ChannelNormKit extends ChannelNormConformance {
        @Override protected Backend backend() { return cuda; }
    }
}
