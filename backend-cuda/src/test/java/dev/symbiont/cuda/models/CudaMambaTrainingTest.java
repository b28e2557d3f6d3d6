package dev.symbiont.cuda.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.scan.ScanKernels;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import dev.symbiont.models.mamba.MambaLM;
import dev.symbiont.models.mamba.MambaLMConfig;
import dev.symbiont.nn.mamba.Mamba2Config;
import dev.symbiont.nn.mamba.Mamba2Mixer;
import dev.symbiont.nn.mamba.SsdImpl;
import org.junit.jupiter.api.Test;

import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A Mamba and a Mamba-2 language model train on the {@code cuda} backend, interpreted: the losses
 * of a few AdamW steps follow the reference backend's, both with the backend's scan kernels and
 * with the scan family forced to its reference composed of the device's primitives. Mamba-2's SSD
 * runs as the selective scan where the backend has scan kernels ({@code SsdImpl.AUTO}) and as the
 * chunked matrix form on the reference backend and with the family forced, so its case also checks
 * that the two forms train alike. A Mamba-2 with the chunked form chosen ({@code SsdImpl.CHUNKED})
 * trains on the backend's SSD kernels ({@code ssd.cu}) as on the reference. The causal depthwise
 * conv1d in front of both scans is the conv family's reference on this backend's primitives.
 */
class CudaMambaTrainingTest {
    private static final int VOCAB = 13, BATCH = 2, SEQ = 9, STEPS = 3;

    /** d_model 8, one block, N 16, d_conv 4, expand 2: d_inner 16. */
    private static final MambaLMConfig MAMBA = MambaLMConfig.of(VOCAB, 8, 1, 16, 4, 2);
    /** d_model 8, expand 2, head_dim 4, N 8: four heads of four channels, one group. */
    private static final MambaLMConfig MAMBA2 = MambaLMConfig.mamba2(VOCAB, Mamba2Config.of(8, 2, 4, 8), 1);

    /** As {@link #MAMBA2} with two groups of B and C and chunks of 4 positions: a sequence of 9 is three chunks. */
    private static final MambaLMConfig MAMBA2_CHUNKS = MambaLMConfig.mamba2(VOCAB, new Mamba2Config(8, 4, 4, 8, 2, 4, 4), 1);

    private static float[] losses(Backend backend, MambaLMConfig config) {
        try (Scope s = Backends.use(backend)) {
            return AdamWSteps.losses(new MambaLM(config, new Generator(7), 0.5), BATCH, SEQ, STEPS);
        }
    }

    @Test
    void aMambaTrainsOnTheInterpretedDeviceAsOnTheReference() {
        trainsAsOnTheReference(MAMBA);
    }

    @Test
    void aMamba2TrainsOnTheInterpretedDeviceAsOnTheReference() {
        trainsAsOnTheReference(MAMBA2);
    }

    private static void trainsAsOnTheReference(MambaLMConfig config) {
        InterpretedDriver fused = new InterpretedDriver(), composed = new InterpretedDriver();
        float[] reference = losses(new ReferenceBackend(), config);
        long before = Fallbacks.count("selective_scan") + Fallbacks.count("selective_scan backward");
        float[] cuda = losses(new CudaBackend(fused, 0), config);
        assertEquals(before, Fallbacks.count("selective_scan") + Fallbacks.count("selective_scan backward"),
                "the selective scan kernels took every call");
        float[] cudaComposed;
        try (Scope s = FusedKernels.forceReference(ScanKernels.FAMILY)) {
            cudaComposed = losses(new CudaBackend(composed, 0), config);
        }
        for (int step = 0; step < STEPS; step++) {
            assertEquals(reference[step], cuda[step], 1e-4 * Math.abs(reference[step]), "loss at step " + step);
            assertEquals(reference[step], cudaComposed[step], 1e-4 * Math.abs(reference[step]), "composed loss at step " + step);
        }
        assertTrue(cuda[STEPS - 1] < cuda[0], "the loss falls: " + Arrays.toString(cuda));
        assertTrue(fused.launches() < composed.launches(), "the scan kernels ran: " + fused.launches()
                + " launches against " + composed.launches() + " with the scan family composed of primitives");
    }

    @Test
    void aMamba2WithTheChunkedSsdTrainsOnTheSsdKernelsAsOnTheReference() {
        InterpretedDriver driver = new InterpretedDriver();
        float[] reference = chunkedLosses(new ReferenceBackend());
        long before = Fallbacks.count("ssd_chunked") + Fallbacks.count("ssd_chunked backward");
        float[] cuda = chunkedLosses(new CudaBackend(driver, 0));
        assertEquals(before, Fallbacks.count("ssd_chunked") + Fallbacks.count("ssd_chunked backward"),
                "the SSD kernels took every call");
        assertTrue(driver.launches("ssd_chunk_scan_f32") >= STEPS && driver.launches("ssd_dcum_f32") >= STEPS,
                "the forward and backward kernels ran every step");
        for (int step = 0; step < STEPS; step++) {
            assertEquals(reference[step], cuda[step], 1e-4 * Math.abs(reference[step]), "loss at step " + step);
        }
        assertTrue(cuda[STEPS - 1] < cuda[0], "the loss falls: " + Arrays.toString(cuda));
    }

    private static float[] chunkedLosses(Backend backend) {
        try (Scope s = Backends.use(backend)) {
            MambaLM model = new MambaLM(MAMBA2_CHUNKS, new Generator(7), 0.5);
            for (var m : model.modules()) if (m instanceof Mamba2Mixer mixer) mixer.ssdImpl(SsdImpl.CHUNKED);
            return AdamWSteps.losses(model, BATCH, SEQ, STEPS);
        }
    }
}
