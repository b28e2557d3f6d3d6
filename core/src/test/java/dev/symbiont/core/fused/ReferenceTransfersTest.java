package dev.symbiont.core.fused;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.conv.Convolutions;
import dev.symbiont.core.fused.conv.Pooling;
import dev.symbiont.core.fused.moe.Moe;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.core.reference.TransferCountingBackend;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The conv and moe references are what a device backend runs before it has kernels of its own,
 * so a training step through them must not move data between host and device: each step below
 * runs twice on a backend that counts uploads and downloads, and the second must make none.
 */
class ReferenceTransfersTest {
    private static final int TOKENS = 24, D = 8, EXPERTS = 4, K = 2, HIDDEN = 12;

    private final TransferCountingBackend backend = new TransferCountingBackend();

    /** Runs {@code step} once to warm any cache, then again counting: no upload, no download. */
    private void assertSecondStepMovesNothing(String what, Runnable step) {
        try (var on = Backends.use(backend)) {
            step.run();
            backend.reset();
            step.run();
        }
        assertAll(() -> assertEquals(0, backend.uploads(), what + ": uploads in the second step " + backend.transfers()),
                () -> assertEquals(0, backend.downloads(), what + ": downloads in the second step " + backend.transfers()));
    }

    private static Tensor leaf(Generator gen, int... shape) {
        return Tensor.randn(gen, shape).requiresGrad(true);
    }

    @Test
    void convolutionAndPoolingForwardAndBackwardMakeNoHostTransfers() {
        assertSecondStepMovesNothing("conv family", () -> {
            try (var ref = FusedKernels.forceReference(ConvKernels.FAMILY)) {
                Generator gen = new Generator(3);
                Tensor x = leaf(gen, 2, 4, 9, 9), w = leaf(gen, 6, 2, 3, 3), b = leaf(gen, 6);
                Tensor conv = Convolutions.conv2d(x, w, b, new int[] {2, 1}, new int[] {1, 2}, new int[] {1, 2}, 2);
                Tensor max = Pooling.maxPool2d(x, new int[] {3, 2}, new int[] {2, 2}, new int[] {1, 1}, new int[] {1, 2}, true);
                Tensor avg = Pooling.avgPool2d(x, new int[] {3, 3}, new int[] {2, 2}, new int[] {1, 1}, true, false);
                Tensor avgPad = Pooling.avgPool2d(x, 2, 2, 1);
                Tensor adaptive = Pooling.adaptiveAvgPool2d(x, 4, 3);
                conv.square().sum().add(max.sum()).add(avg.square().sum()).add(avgPad.sum()).add(adaptive.square().sum())
                        .backward();
            }
        });
    }

    /** One MoE layer of the reference: router → permute → grouped SwiGLU → grouped GEMM → combine, and back. */
    private static void moeLayer(int capacity) {
        try (var ref = FusedKernels.forceReference(MoeKernels.FAMILY)) {
            Generator gen = new Generator(9);
            Tensor x = leaf(gen, TOKENS, D), gate = leaf(gen, EXPERTS, D), w2 = leaf(gen, EXPERTS, HIDDEN, D);
            List<Tensor> w1 = new ArrayList<>(), w3 = new ArrayList<>();
            for (int e = 0; e < EXPERTS; e++) {
                w1.add(leaf(gen, HIDDEN, D).t()); // a Linear's (out, in) weight, transposed
                w3.add(leaf(gen, D, HIDDEN));
            }
            MoeKernels.Routed r = Moe.route(x, gate, K, true);
            MoeKernels.Permuted p = Moe.permute(x, r.expertIds(), EXPERTS, capacity);
            Tensor h = Moe.groupedSwiglu(p.rows(), w1, w3, p.groupSizes());
            Tensor gated = Moe.swiglu(Moe.groupedMatmul(p.rows(), w1, p.groupSizes()), Moe.groupedMatmul(p.rows(), w3, p.groupSizes()));
            Tensor y = Moe.combine(Moe.groupedMatmul(h.add(gated), w2, p.groupSizes()), r.weights(), p.permutation());
            y.square().sum().add(r.logsumexp().square().sum()).backward();
        }
    }

    @Test
    void aDroplessMoeLayerForwardAndBackwardMakesNoHostTransfers() {
        assertSecondStepMovesNothing("moe family", () -> moeLayer(MoeKernels.DROPLESS));
    }

    /**
     * With a capacity that drops slots the kept-row count decides the rows' shape, so the
     * reference permute reads that one number to the host; nothing else crosses.
     */
    @Test
    void aDroppingPermuteReadsOnlyTheKeptRowCount() {
        try (var on = Backends.use(backend)) {
            moeLayer(5);
            backend.reset();
            moeLayer(5);
        }
        assertAll(() -> assertEquals(0, backend.uploads(), "uploads " + backend.transfers()),
                () -> assertEquals(1, backend.downloads(), "downloads: the kept-row count only " + backend.transfers()),
                () -> assertTrue(backend.transfers().getFirst().contains("ReferenceMoe.permute"), backend.transfers().toString()));
    }
}
