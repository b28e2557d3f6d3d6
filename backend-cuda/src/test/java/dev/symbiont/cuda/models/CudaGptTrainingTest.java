package dev.symbiont.cuda.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.activation.ActivationKernels;
import dev.symbiont.core.fused.linear.LinearKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.fused.optim.OptimKernels;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import dev.symbiont.models.gpt.Gpt;
import dev.symbiont.models.gpt.GptConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A GPT trains on the {@code cuda} backend, interpreted: the same seed gives the same initial
 * weights (Philox is bit-identical) and the losses of a few AdamW steps follow the reference
 * backend's, both with the backend's norm, activation, optim and linear kernels and with those families
 * forced to their references composed of the device's primitives.
 */
class CudaGptTrainingTest {
    static final int VOCAB = 13, STEPS = 3;

    private static float[] losses(Backend backend) {
        try (Scope s = Backends.use(backend)) {
            return AdamWSteps.losses(new Gpt(GptConfig.of(VOCAB, 16, 1, 2, 8), new Generator(7)), 2, 8, STEPS);
        }
    }

    @Test
    void aGptTrainsOnTheInterpretedDeviceAsOnTheReference() {
        InterpretedDriver fused = new InterpretedDriver(), composed = new InterpretedDriver();
        float[] reference = losses(new ReferenceBackend());
        float[] cuda = losses(new CudaBackend(fused, 0));
        float[] cudaComposed;
        try (Scope s = FusedKernels.forceReference(NormKernels.FAMILY, ActivationKernels.FAMILY, OptimKernels.FAMILY,
                LinearKernels.FAMILY)) {
            cudaComposed = losses(new CudaBackend(composed, 0));
        }
        for (int step = 0; step < STEPS; step++) {
            assertEquals(reference[step], cuda[step], 1e-4 * Math.abs(reference[step]), "loss at step " + step);
            assertEquals(reference[step], cudaComposed[step], 1e-4 * Math.abs(reference[step]), "composed loss at step " + step);
        }
        assertTrue(cuda[STEPS - 1] < cuda[0], "the loss falls: " + java.util.Arrays.toString(cuda));
        assertTrue(fused.launches() > 100, "the steps ran as kernels on the device: " + fused.launches() + " launches");
        // The fused kernels replace several primitive launches each (softmax five, AdamW a dozen per parameter).
        assertTrue(fused.launches() < composed.launches() * 3 / 4, "the fused kernels ran: " + fused.launches()
                + " launches against " + composed.launches() + " with the families composed of primitives");
    }
}
