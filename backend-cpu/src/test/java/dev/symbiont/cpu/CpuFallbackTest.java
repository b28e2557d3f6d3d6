package dev.symbiont.cpu;

import dev.symbiont.core.DType;
import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.amp.Autocast;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.Families;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.linear.LinearKernels;
import dev.symbiont.core.fused.linear.Linears;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.profile.Profiler;
import dev.symbiont.cpu.fused.CpuAttention;
import dev.symbiont.cpu.fused.CpuNorm;
import dev.symbiont.cpu.gemm.GemmPath;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Which families the CPU backend implements, the switch back to the reference, and counted fallbacks. */
class CpuFallbackTest {
    private final CpuBackend cpu = new CpuBackend();

    @Test
    void theCpuBackendImplementsNormActivationAndAttention() {
        assertEquals(Families.all(), Families.implementedBy(cpu));
        assertInstanceOf(CpuNorm.class, cpu.fused(NormKernels.FAMILY));
        CpuBackend scalar = new CpuBackend(GemmPath.EJML, false);
        assertEquals(List.of(AttentionKernels.FAMILY, ScanKernels.FAMILY, MoeKernels.FAMILY, LinearKernels.FAMILY,
                        ConvKernels.FAMILY),
                Families.implementedBy(scalar), "scalar tiles keep FlashAttention's memory, the scans keep theirs on a "
                        + "plain-Java exp, moe, linear and conv need only the GEMM and scalar row loops");
        assertInstanceOf(CpuAttention.class, scalar.fused(AttentionKernels.FAMILY));
    }

    @Test
    void forcingAFamilyHandsTheReferenceOutOnTheCpuToo() {
        try (var forced = FusedKernels.forceReference(AttentionKernels.FAMILY)) {
            assertSame(AttentionKernels.FAMILY.reference(), FusedKernels.of(AttentionKernels.FAMILY, cpu));
            assertInstanceOf(CpuNorm.class, FusedKernels.of(NormKernels.FAMILY, cpu), "only the forced family changes");
        }
    }

    @Test
    void aSoftmaxAlongANonLastDimIsCountedAndShownInTheProfile() {
        try (var scope = Backends.use(cpu)) {
            Tensor x = Tensor.randn(new Generator(1), 6, 5);
            long before = Fallbacks.count("softmax");
            x.softmax(-1);
            assertEquals(before, Fallbacks.count("softmax"), "the last dim is the kernel's own case");
            try (var session = Profiler.start("fallbacks")) {
                x.softmax(0);
                assertEquals(before + 1, Fallbacks.count("softmax"));
                assertEquals(1L, session.report().fallbacks().get("softmax: dim is not the last"));
                assertFalse(session.report().table().indexOf("softmax: dim is not the last") < 0, "the table lists it");
            }
        }
    }

    @Test
    void aReductionOverAMiddleDimIsCounted() {
        try (var scope = Backends.use(cpu)) {
            Tensor x = Tensor.randn(new Generator(2), 3, 4, 5);
            long before = Fallbacks.count("reduce SUM");
            x.sum(1, false);
            assertEquals(before + 1, Fallbacks.count("reduce SUM"));
        }
    }

    @Test
    void autocastsLowPrecisionLinearOperandsRunTheCpuKernelsWithoutAFallback() {
        try (var scope = Backends.use(cpu)) {
            Generator g = new Generator(3);
            Tensor x = Tensor.randn(g, 4, 6, 32).requiresGrad(true), w = Tensor.randn(g, 24, 32).requiresGrad(true);
            Tensor b = Tensor.randn(g, 24).requiresGrad(true);
            long linear = Fallbacks.count("linear"), gelu = Fallbacks.count("linear_gelu");
            Tensor y;
            try (var amp = Autocast.enable(DType.BFLOAT16)) {
                Tensor[] qkv = Linears.linearSplit(x, w, b, 8, 8, 8);
                y = Linears.linear(x, w, b).add(Linears.linearGelu(x, w, b)).add(Tensor.cat(List.of(qkv), -1));
            }
            y.sum().backward();
            assertEquals(DType.FLOAT32, y.dtype());
            assertEquals(linear, Fallbacks.count("linear"), "bfloat16 x and W are widened, not sent to the reference");
            assertEquals(gelu, Fallbacks.count("linear_gelu"));
        }
    }
}
