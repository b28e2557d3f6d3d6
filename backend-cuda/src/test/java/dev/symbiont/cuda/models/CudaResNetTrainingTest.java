package dev.symbiont.cuda.models;

import dev.symbiont.core.Generator;
import dev.symbiont.core.Scope;
import dev.symbiont.core.Tensor;
import dev.symbiont.core.backend.Backend;
import dev.symbiont.core.backend.Backends;
import dev.symbiont.core.fused.Fallbacks;
import dev.symbiont.core.fused.FusedKernels;
import dev.symbiont.core.fused.conv.ConvKernels;
import dev.symbiont.core.fused.norm.NormKernels;
import dev.symbiont.core.reference.ReferenceBackend;
import dev.symbiont.cuda.CudaBackend;
import dev.symbiont.cuda.ptx.InterpretedDriver;
import dev.symbiont.models.resnet.ResNet;
import dev.symbiont.models.resnet.ResNetConfig;
import dev.symbiont.models.resnet.ResNetStem;
import dev.symbiont.optim.Optimizer;
import dev.symbiont.optim.SGD;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A tiny ResNet trains on the {@code cuda} backend, interpreted: a few SGD-momentum steps on 8×8
 * RGB images give the reference backend's losses, both with the backend's conv and channel-norm
 * kernels (3×3 and strided 1×1 convolutions, batch norm in training, max pooling in the stem,
 * adaptive average pooling in the head) and with those families forced to their references
 * composed of the device's primitives.
 */
class CudaResNetTrainingTest {
    private static final int STEPS = 3, BATCH = 4, CLASSES = 3;
    private static final List<String> KERNEL_OPS = List.of("conv2d", "conv2d backward", "max_pool2d", "max_pool2d backward",
            "adaptive_avg_pool2d", "adaptive_avg_pool2d backward", "batch_norm", "batch_norm backward");
    /** One BasicBlock per stage, widths 4 and 8, the pooled small-image stem: stages see 4, 2, 1 and 1 pixels a side. */
    private static final ResNetConfig TINY = ResNetConfig.resnet18().withLayers(1, 1, 1, 1).withWidths(4, 4, 8, 8)
            .withStem(ResNetStem.SMALL_POOLED).withNumClasses(CLASSES);

    private static float[] losses(Backend backend) {
        try (Scope s = Backends.use(backend)) {
            ResNet model = new ResNet(TINY, new Generator(21));
            model.train();
            Optimizer opt = new SGD(model.namedParameters(), SGD.options(0.05).momentum(0.9));
            Tensor images = Tensor.randn(new Generator(22), BATCH, 3, 8, 8);
            Tensor labels = Tensor.fromArray(new long[] {0, 2, 1, 2});
            return TrainingSteps.losses(STEPS, opt, () -> model.loss(images, labels));
        }
    }

    @Test
    void aResNetTrainsOnTheInterpretedDeviceAsOnTheReference() {
        InterpretedDriver fused = new InterpretedDriver(), composed = new InterpretedDriver();
        float[] reference = losses(new ReferenceBackend());
        long before = fallbacks();
        float[] cuda = losses(new CudaBackend(fused, 0));
        assertEquals(before, fallbacks(), "the conv and channel-norm kernels took every call");
        float[] cudaComposed;
        try (Scope s = FusedKernels.forceReference(ConvKernels.FAMILY, NormKernels.FAMILY)) {
            cudaComposed = losses(new CudaBackend(composed, 0));
        }
        for (int step = 0; step < STEPS; step++) {
            assertEquals(reference[step], cuda[step], 1e-4 * Math.abs(reference[step]), "loss at step " + step);
            assertEquals(reference[step], cudaComposed[step], 1e-4 * Math.abs(reference[step]), "composed loss at step " + step);
        }
        assertTrue(cuda[STEPS - 1] < cuda[0], "the loss falls: " + Arrays.toString(cuda));
        // im2col is one launch where the reference builds its index table from a dozen primitives
        assertTrue(fused.launches() < composed.launches() * 3 / 4, "the fused kernels ran: " + fused.launches()
                + " launches against " + composed.launches() + " with the families composed of primitives");
    }

    private static long fallbacks() {
        long n = 0;
        for (String op : KERNEL_OPS) n += Fallbacks.count(op);
        return n;
    }
}
