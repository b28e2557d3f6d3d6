package dev.symbiont.cuda.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.moe.MoeKernels;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import dev.symbiont.nn.moe.Dispatch;
import dev.symbiont.nn.moe.MoeLayers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MoE GPT that {@code symbiont train --arch moe} builds (every MLP a routed SwiGLU mixture,
 * Mixtral's renormalised weights, load-balancing and z-loss added to the task loss) trains on the
 * {@code cuda} backend, interpreted: the losses of a few AdamW steps follow the reference
 * backend's, both with the backend's moe kernels and with the family forced to its reference
 * composed of the device's primitives, dropless and with a capacity that drops slots.
 */
class CudaMoeGptTrainingTest {
    private static final int VOCAB = CudaGptTrainingTest.VOCAB, STEPS = CudaGptTrainingTest.STEPS, D = 16, EXPERTS = 4, TOP_K = 2;
    private static final List<String> MOE_OPS = List.of("moe_route", "moe_route backward", "moe_permute", "moe_permute backward",
            "grouped_matmul", "grouped_matmul backward", "moe_combine", "moe_combine backward", "moe_swiglu", "moe_swiglu backward", "grouped_swiglu");

    private static float[] losses(Backend backend, double capacityFactor) {
        try (Scope s = Backends.use(backend)) {
            int hidden = (8 * D + 3 * TOP_K - 1) / (3 * TOP_K); // the moe command's active-parameter match
            Dispatch dispatch = capacityFactor == 0 ? Dispatch.dropless() : Dispatch.capacity(capacityFactor);
            MoeLayers moe = new MoeLayers(EXPERTS, TOP_K, hidden, dispatch, true, 0, 1, 0.01, 0.001);
            return AdamWSteps.losses(new Gpt(GptConfig.of(VOCAB, D, 1, 2, 8), moe, new Generator(7), 0.1), 2, 8, STEPS);
        }
    }

    /** Capacity factor 0: dropless; 0.75: ⌈0.75 · 2 · 16 / 4⌉ = 6 slots per expert against an even share of 8, so slots drop. */
    @ParameterizedTest(name = "capacity factor {0}")
    @ValueSource(doubles = {0, 0.75})
    void anMoeGptTrainsOnTheInterpretedDeviceAsOnTheReference(double capacityFactor) {
        InterpretedDriver fused = new InterpretedDriver(), composed = new InterpretedDriver();
        float[] reference = losses(new ReferenceBackend(), capacityFactor);
        long fallbacksBefore = MOE_OPS.stream().mapToLong(Fallbacks::count).sum();
        float[] cuda = losses(new CudaBackend(fused, 0), capacityFactor);
        assertEquals(fallbacksBefore, MOE_OPS.stream().mapToLong(Fallbacks::count).sum(), "the moe kernels took every call");
        float[] cudaComposed;
        try (Scope s = FusedKernels.forceReference(MoeKernels.FAMILY)) {
            cudaComposed = losses(new CudaBackend(composed, 0), capacityFactor);
        }
        for (int step = 0; step < STEPS; step++) {
            assertEquals(reference[step], cuda[step], 1e-4 * Math.abs(reference[step]), "loss at step " + step);
            assertEquals(reference[step], cudaComposed[step], 1e-4 * Math.abs(reference[step]), "composed loss at step " + step);
        }
        assertTrue(cuda[STEPS - 1] < cuda[0], "the loss falls: " + Arrays.toString(cuda));
        // The reference's grouped GEMM multiplies every row by every expert and its permute sorts with topk: many more launches.
        assertTrue(fused.launches() < composed.launches(), "the moe kernels ran: " + fused.launches()
                + " launches against " + composed.launches() + " with the family composed of primitives");
    }
}
