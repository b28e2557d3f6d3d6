package dev.symbiont.core.fused;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.attention.AttentionKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.norm.ReferenceNorm;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.profile.OpCategory;
import dev.symbiont.core.reference.ReferenceBackend;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** How a fused op finds its kernels: the backend's own, the reference, and the switches between them. */
class FusedKernelsTest {

    /** The reference norm, counting the softmax calls it serves. */
    static final class CountingNorm extends ReferenceNorm {
        int forwards, backwards;

        @Override public Tensor softmax(Tensor x, int dim) { forwards++; return super.softmax(x, dim); }

        @Override public Tensor softmaxBackward(Tensor y, Tensor g, int dim) { backwards++; return super.softmaxBackward(y, g, dim); }
    }

    /** A backend with a norm kernel of its own and nothing else. */
    static final class NormBackend extends ReferenceBackend {
        final CountingNorm norm = new CountingNorm();

        @Override public String name() { return "norm-test"; }

        @Override
        public <K> K fused(Family<K> family) {
            return family == NormKernels.FAMILY ? family.contract().cast(norm) : null;
        }
    }

    private final NormBackend backend = new NormBackend();

    @AfterEach
    void clearProperty() { System.clearProperty(NormKernels.FAMILY.property()); }

    private Tensor softmaxWithBackward() {
        try (var scope = Backends.use(backend)) {
            Tensor x = Tensor.randn(new Generator(3), 4, 5).requiresGrad(true);
            Tensor y = x.softmax(-1);
            y.sum().backward();
            return y;
        }
    }

    @Test
    void aFusedOpRunsTheBackendsKernelsForwardAndBackward() {
        softmaxWithBackward();
        assertEquals(1, backend.norm.forwards);
        assertEquals(1, backend.norm.backwards);
        assertSame(backend.norm, FusedKernels.of(NormKernels.FAMILY, backend));
    }

    @Test
    void aFamilyTheBackendDoesNotImplementRunsItsReference() {
        assertSame(AttentionKernels.FAMILY.reference(), FusedKernels.of(AttentionKernels.FAMILY, backend));
        assertEquals(List.of(NormKernels.FAMILY), Families.implementedBy(backend));
        assertEquals(List.of(), Families.implementedBy(new ReferenceBackend()));
    }

    @Test
    void theScopedSwitchForcesTheReferenceOnThisThreadUntilClosed() {
        try (var forced = FusedKernels.forceReference(NormKernels.FAMILY)) {
            assertTrue(FusedKernels.of(NormKernels.FAMILY, backend) instanceof ReferenceNorm);
            softmaxWithBackward();
        }
        assertEquals(0, backend.norm.forwards);
        assertEquals(0, backend.norm.backwards);
        assertSame(backend.norm, FusedKernels.of(NormKernels.FAMILY, backend));
    }

    @Test
    void nestedScopesRestoreWhatTheOuterOneForced() {
        try (var outer = FusedKernels.forceReference(NormKernels.FAMILY)) {
            try (var inner = FusedKernels.forceReference(NormKernels.FAMILY, AttentionKernels.FAMILY)) {
                assertTrue(FusedKernels.forcedToReference(AttentionKernels.FAMILY));
            }
            assertTrue(FusedKernels.forcedToReference(NormKernels.FAMILY), "the outer scope still forces norm");
            assertTrue(!FusedKernels.forcedToReference(AttentionKernels.FAMILY));
        }
        assertTrue(!FusedKernels.forcedToReference(NormKernels.FAMILY));
    }

    @Test
    void backwardUsesTheKernelsItsForwardChose() {
        Tensor x = Tensor.randn(new Generator(4), 3, 6).to(backend).requiresGrad(true);
        Tensor y;
        try (var forced = FusedKernels.forceReference(NormKernels.FAMILY)) {
            y = x.softmax(-1);
        }
        y.sum().backward();
        assertEquals(0, backend.norm.backwards, "a forward on the reference keeps the reference for its backward");
    }

    @Test
    void theSystemPropertyForcesTheReferenceAndBackendUndoesIt() {
        System.setProperty("symbiont.fused.norm", "reference");
        assertTrue(FusedKernels.of(NormKernels.FAMILY, backend) instanceof ReferenceNorm);
        System.setProperty("symbiont.fused.norm", " Backend ");
        assertSame(backend.norm, FusedKernels.of(NormKernels.FAMILY, backend));
    }

    @Test
    void anUnknownSwitchValueIsAnErrorNamingThePropertyAndTheChoices() {
        System.setProperty("symbiont.fused.norm", "fast");
        var e = assertThrows(IllegalArgumentException.class, () -> FusedKernels.of(NormKernels.FAMILY, backend));
        assertTrue(e.getMessage().contains("symbiont.fused.norm"), e.getMessage());
        assertTrue(e.getMessage().contains("'fast'") && e.getMessage().contains("reference"), e.getMessage());
    }

    @Test
    void familiesAreFoundByNameAndAnUnknownNameListsTheKnownOnes() {
        assertSame(NormKernels.FAMILY, Families.named("norm"));
        var e = assertThrows(IllegalArgumentException.class, () -> Families.named("nonesuch"));
        assertTrue(e.getMessage().contains("[norm, activation, attention, scan, moe, conv]"), e.getMessage());
        assertSame(ScanKernels.FAMILY, Families.named("scan"));
    }

    @Test
    void aFusedOpRecordsOneProfilerRowUnderItsName() {
        FusedOp<NormKernels> op = FusedOp.of(NormKernels.FAMILY, "test_softmax", OpCategory.NORMALIZATION);
        Tensor x = Tensor.randn(new Generator(5), 2, 3).to(backend).requiresGrad(true);
        try (var session = dev.symbiont.core.profile.Profiler.start("fused-op")) {
            Tensor y = op.run(backend, 30, 48, k -> FusedOp.saving(k.softmax(x.detach(), 1)),
                    (k, out, g) -> new Tensor[] {k.softmaxBackward(out, g, 1)}, x);
            assertEquals("test_softmax", y.gradFn().name());
            var row = session.report().op("test_softmax").orElseThrow();
            assertEquals(1, row.calls());
            assertEquals(30, row.flops());
            assertEquals(OpCategory.NORMALIZATION, row.category());
        }
    }
}
